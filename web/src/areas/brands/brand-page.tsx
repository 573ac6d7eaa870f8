// A brand's settings: every field of the brand in one form, saved as one PATCH with the version read (a brand
// changed elsewhere meanwhile is a 409 to reload, never overwritten), beside the compiled context it gives.
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { HeraldError } from '../../api.ts';
import { ErrorNote, formatTime, PageTitle, Show, useAction, useApp, useLoad } from '../../ui.tsx';
import { ContextView } from './context-view.tsx';
import { toDraft, toPatch, type Brand, type Draft } from './draft.ts';
import { Audience, Identity, Knowledge, RulesSection, Terms, Voice } from './sections.tsx';
import './brands.css';

function BrandForm({ brand, onSaved }: { brand: Brand; onSaved(b: Brand): void }) {
  const { herald, reloadMe } = useApp();
  const [draft, setDraft] = useState<Draft>(() => toDraft(brand));
  const [saved, setSaved] = useState('');
  const save = useAction();
  useEffect(() => setDraft(toDraft(brand)), [brand]);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    setSaved('');
    setDraft((d) => ({ ...d, [key]: value }));
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const next = await save.run(() =>
      herald.PATCH('/brands/{id}', { params: { path: { id: brand.id } }, body: toPatch(draft, brand.version) }),
    );
    if (next) {
      setSaved(`Saved: version ${next.version}.`);
      onSaved(next);
      // The navigation's brand pickers read names from /me.
      if (next.name !== brand.name) void reloadMe();
    }
  };
  const conflict = save.error instanceof HeraldError && save.error.code === 'PUBLIC_API_VERSION_CONFLICT';
  return (
    <form className="stack brand-form" aria-label="Brand settings" onSubmit={(e) => void submit(e)}>
      <Identity draft={draft} set={set} />
      <Voice draft={draft} set={set} />
      <Audience draft={draft} set={set} />
      <Terms draft={draft} set={set} />
      <RulesSection draft={draft} set={set} />
      <Knowledge draft={draft} set={set} />
      <div className="save-bar">
        <ErrorNote error={save.error} />
        {conflict ? <p>Someone changed this brand meanwhile. Reload it and apply your changes again.</p> : null}
        <p role="status" className="meta">
          {saved}
        </p>
        <button type="submit" disabled={save.busy}>
          {save.busy ? 'Saving…' : 'Save the brand'}
        </button>
      </div>
    </form>
  );
}

export function BrandPage() {
  const { id = '' } = useParams();
  const { herald } = useApp();
  const loaded = useLoad(() => herald.GET('/brands/{id}', { params: { path: { id } } }), [herald, id]);
  const [brand, setBrand] = useState<Brand | undefined>();
  useEffect(() => setBrand(loaded.data), [loaded.data]);
  return (
    <>
      <p>
        <Link to="/brands">← All brands</Link>
      </p>
      <PageTitle>Brand settings</PageTitle>
      <Show loaded={loaded} what="the brand">
        {(first) => {
          const current = brand ?? first;
          return (
            <>
              <p className="meta">
                <strong>{current.name}</strong> ({current.slug}){current.is_default ? ' · the default brand' : ''} ·
                version {current.version} · changed {formatTime(current.updated_at)}{' '}
                <button type="button" className="secondary small" onClick={loaded.reload}>
                  Reload
                </button>
              </p>
              <div className="brand-layout">
                <BrandForm brand={current} onSaved={setBrand} />
                <ContextView brandId={current.id} version={current.version} />
              </div>
            </>
          );
        }}
      </Show>
    </>
  );
}
