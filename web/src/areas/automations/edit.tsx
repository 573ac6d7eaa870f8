// The new and edit pages: the form, and its two ways out. "Save" stores it; "preview" stores it (a new one
// paused, since the preview endpoint needs a stored automation) and asks for the dry run, then shows the
// automation's page with the previewed posts.
import { useNavigate, useParams } from 'react-router';
import { ErrorNote, PageTitle, Ready, useAction, useApp, useLoad } from '../../ui.tsx';
import { activeConnections } from './connections.ts';
import { AutomationForm } from './form.tsx';
import { bodyOf, emptyForm, formFrom, type FormState } from './model.ts';

function Buttons({ busy, save, preview }: { busy: boolean; save: string; preview: string }) {
  return (
    <div className="actions">
      <button type="submit" name="intent" value="save" disabled={busy}>
        {save}
      </button>
      <button type="submit" name="intent" value="preview" className="secondary" disabled={busy}>
        {preview}
      </button>
    </div>
  );
}

export function NewAutomationPage() {
  const { herald, workspace } = useApp();
  const navigate = useNavigate();
  const connections = useLoad(() => activeConnections(herald), [herald]);
  const submit = useAction();
  const save = async (form: FormState, intent: string) => {
    const previewing = intent === 'preview';
    const done = await submit.run(async () => {
      const made = await herald.POST('/automations', {
        body: {
          ...bodyOf(form),
          brand_id: form.brandId,
          status: previewing ? 'paused' : form.status,
        },
      });
      const preview = previewing
        ? await herald.POST('/automations/{id}/preview', { params: { path: { id: made.id } } })
        : undefined;
      return { made, preview };
    });
    if (done) void navigate(`/automations/${done.made.id}`, { state: { preview: done.preview } });
  };
  return (
    <>
      <PageTitle>New automation</PageTitle>
      <Ready loads={[connections]} what="your accounts">
        <AutomationForm
          initial={emptyForm(workspace?.brands[0]?.id ?? '')}
          creating
          connections={connections.data ?? []}
          label="New automation"
          onSubmit={(form, intent) => void save(form, intent)}
        >
          <ErrorNote error={connections.error ?? submit.error} />
          <p className="meta">
            Previewing first saves the automation paused: the dry run needs it stored. Resume it from its page.
          </p>
          <Buttons busy={submit.busy} save="Create the automation" preview="Save paused and preview" />
        </AutomationForm>
      </Ready>
    </>
  );
}

export function EditAutomationPage() {
  const { id = '' } = useParams();
  const { herald } = useApp();
  const navigate = useNavigate();
  const automation = useLoad(() => herald.GET('/automations/{id}', { params: { path: { id } } }), [herald, id]);
  const connections = useLoad(() => activeConnections(herald), [herald]);
  const submit = useAction();
  const save = async (form: FormState, intent: string) => {
    const done = await submit.run(async () => {
      // Only the parts changed: a source sent again, even unchanged, would start its schedule over.
      const before = bodyOf(formFrom(automation.data!)) as Record<string, unknown>;
      const after = bodyOf(form) as Record<string, unknown>;
      const changed = Object.fromEntries(
        Object.entries(after).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(before[k])),
      );
      if (Object.keys(changed).length)
        await herald.PATCH('/automations/{id}', { params: { path: { id } }, body: changed });
      return intent === 'preview'
        ? { preview: await herald.POST('/automations/{id}/preview', { params: { path: { id } } }) }
        : { preview: undefined };
    });
    if (done) void navigate(`/automations/${id}`, { state: { preview: done.preview } });
  };
  return (
    <>
      <PageTitle>Edit automation</PageTitle>
      <Ready loads={[automation, connections]} what="the automation">
        <ErrorNote error={automation.error ?? connections.error} />
        {automation.data?.status === 'archived' ? (
          <p>This automation is archived: it cannot be changed.</p>
        ) : automation.data ? (
          <AutomationForm
            initial={formFrom(automation.data)}
            creating={false}
            connections={connections.data ?? []}
            label={`Edit ${automation.data.name}`}
            onSubmit={(form, intent) => void save(form, intent)}
          >
            <ErrorNote error={submit.error} />
            <Buttons busy={submit.busy} save="Save changes" preview="Save and preview" />
          </AutomationForm>
        ) : null}
      </Ready>
    </>
  );
}
