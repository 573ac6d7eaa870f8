// The destinations, output and options parts of the automation form.
import { connectionLabel, type Connection } from './connections.ts';
import { PLATFORMS } from '../../platforms.ts';
import { Options, Radios } from '../../ui.tsx';
import { OUTPUT_MODES, type DestinationState, type FormState } from './model.ts';
import type { PartProps } from './form-source.tsx';

export function DestinationFields({ form, set, connections }: PartProps & { connections: Connection[] }) {
  const ofBrand = connections.filter((c) => c.brand_id === form.brandId);
  const change = (i: number, patch: Partial<DestinationState>) =>
    set(
      'destinations',
      form.destinations.map((d, j) => (j === i ? { ...d, ...patch } : d)),
    );
  const add = () =>
    set('destinations', [
      ...form.destinations,
      ofBrand[0]
        ? { kind: 'connection', connectionId: ofBrand[0].id, platform: ofBrand[0].platform, override: '' }
        : { kind: 'platform', connectionId: '', platform: 'x', override: '' },
    ]);
  return (
    <fieldset className="stack">
      <legend>Where it posts</legend>
      {form.destinations.length === 0 ? <p className="empty">No destination yet: add at least one.</p> : null}
      <ol className="destinations">
        {form.destinations.map((d, i) => (
          <li key={i} className="card stack">
            <div className="inline">
              <label>
                Destination {i + 1}
                <select
                  value={d.kind}
                  onChange={(e) => change(i, { kind: e.target.value as DestinationState['kind'] })}
                >
                  <option value="connection">a connected account</option>
                  <option value="platform">a platform (the brand&apos;s default account)</option>
                </select>
              </label>
              {d.kind === 'connection' ? (
                <label>
                  Account of destination {i + 1}
                  <select required value={d.connectionId} onChange={(e) => change(i, { connectionId: e.target.value })}>
                    <option value="">choose…</option>
                    {ofBrand.map((c) => (
                      <option key={c.id} value={c.id}>
                        {connectionLabel(c)}
                      </option>
                    ))}
                  </select>
                </label>
              ) : (
                <label>
                  Platform of destination {i + 1}
                  <select
                    value={d.platform}
                    onChange={(e) => change(i, { platform: e.target.value as DestinationState['platform'] })}
                  >
                    <Options values={PLATFORMS} />
                  </select>
                </label>
              )}
            </div>
            <label>
              Own template for destination {i + 1} (optional)
              <textarea rows={2} value={d.override} onChange={(e) => change(i, { override: e.target.value })} />
            </label>
            <button
              type="button"
              className="secondary small"
              onClick={() =>
                set(
                  'destinations',
                  form.destinations.filter((_, j) => j !== i),
                )
              }
            >
              Remove destination {i + 1}
            </button>
          </li>
        ))}
      </ol>
      <div>
        <button type="button" className="secondary small" onClick={add}>
          Add a destination
        </button>
      </div>
    </fieldset>
  );
}

export function OutputFields({ form, set }: PartProps) {
  const timed = form.outputMode === 'schedule' || form.outputMode === 'approval';
  return (
    <fieldset className="stack">
      <legend>What the posts become</legend>
      <Radios
        name="output-mode"
        choices={OUTPUT_MODES}
        value={form.outputMode}
        onChange={(value) => set('outputMode', value)}
      />
      {timed ? (
        <label>
          Delay after the run (ISO 8601 duration{form.outputMode === 'schedule' ? ', empty: PT10M' : ', optional'})
          <input
            value={form.scheduleExpr}
            onChange={(e) => set('scheduleExpr', e.target.value)}
            placeholder="PT2H"
            spellCheck={false}
          />
        </label>
      ) : null}
    </fieldset>
  );
}

export function OptionFields({ form, set }: PartProps) {
  if (form.sourceType !== 'rss')
    return (
      <fieldset>
        <legend>Options</legend>
        <p className="meta">
          Hashtags, UTM parameters and items per run can be set on feed automations. Herald&apos;s API refuses an
          options object on schedule and event sources, so these run with the defaults.
        </p>
      </fieldset>
    );
  return (
    <fieldset className="stack">
      <legend>Options</legend>
      <label>
        Hashtags added to every post
        <input value={form.hashtags} onChange={(e) => set('hashtags', e.target.value)} placeholder="#news #weekly" />
      </label>
      <label className="narrow-field">
        New items per run
        <input type="number" min={1} value={form.maxItems} onChange={(e) => set('maxItems', e.target.value)} />
      </label>
      <label className="check">
        <input type="checkbox" checked={form.utm} onChange={(e) => set('utm', e.target.checked)} />
        <span>Add UTM parameters to the item&apos;s link</span>
      </label>
      {form.utm ? (
        <div className="inline">
          <label>
            utm_source (empty: the platform)
            <input value={form.utmSource} onChange={(e) => set('utmSource', e.target.value)} />
          </label>
          <label>
            utm_medium (empty: social)
            <input value={form.utmMedium} onChange={(e) => set('utmMedium', e.target.value)} />
          </label>
          <label>
            utm_campaign (empty: automation)
            <input value={form.utmCampaign} onChange={(e) => set('utmCampaign', e.target.value)} />
          </label>
        </div>
      ) : null}
      <>
        <label className="check">
          <input type="checkbox" checked={form.useItemImage} onChange={(e) => set('useItemImage', e.target.checked)} />
          <span>Attach the item&apos;s image</span>
        </label>
        <label className="check">
          <input type="checkbox" checked={form.backfill} onChange={(e) => set('backfill', e.target.checked)} />
          <span>Post the items already in the feed at the first poll (backfill)</span>
        </label>
      </>
    </fieldset>
  );
}

export type { FormState };
