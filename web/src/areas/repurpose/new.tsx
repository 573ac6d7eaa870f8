// A new repurpose job: the source, the outputs wanted per platform, options, and where the outputs go (drafts,
// the approval queue or the schedule). POST /v1/repurpose answers the queued job; its page follows it.
import { useCallback, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { BrandOptions, ErrorNote, PageTitle, Ready, useAction, useApp, useLoad } from '../../ui.tsx';
import { bodyOf, emptyForm, type FormState } from './model.ts';
import { SourceFields } from './source-fields.tsx';
import { OptionFields, OutputFields, TargetFields } from './target-fields.tsx';

export function NewJobPage() {
  const { herald, workspace } = useApp();
  const navigate = useNavigate();
  const platforms = useLoad(() => herald.GET('/platforms'), [herald]);
  const [form, setForm] = useState(() => emptyForm(workspace?.brands[0]?.id ?? ''));
  const set = useCallback(
    <K extends keyof FormState>(key: K, value: FormState[K]) => setForm((f) => ({ ...f, [key]: value })),
    [],
  );
  const submit = useAction();
  const send = async (event: FormEvent) => {
    event.preventDefault();
    const job = await submit.run(() => herald.POST('/repurpose', { body: bodyOf(form) }));
    if (job) void navigate(`/repurpose/${job.id}`);
  };
  return (
    <>
      <PageTitle>Repurpose content</PageTitle>
      <Ready loads={[platforms]} what="the platforms">
        <ErrorNote error={platforms.error} />
        <form className="stack repurpose-form" aria-label="New repurpose job" onSubmit={(e) => void send(e)}>
          {(workspace?.brands.length ?? 0) > 1 ? (
            <label>
              Brand
              <select value={form.brandId} onChange={(e) => set('brandId', e.target.value)}>
                <BrandOptions />
              </select>
            </label>
          ) : null}
          <SourceFields form={form} set={set} />
          <TargetFields form={form} set={set} platforms={platforms.data?.items ?? []} />
          <OptionFields form={form} set={set} />
          <OutputFields form={form} set={set} />
          <ErrorNote error={submit.error} />
          <div>
            <button type="submit" disabled={submit.busy || form.targets.length === 0}>
              {submit.busy ? 'Starting…' : 'Repurpose'}
            </button>
          </div>
        </form>
      </Ready>
    </>
  );
}
