// The targets, options and output parts of the repurpose form. A thread is offered only on platforms whose
// limits take more than one part (GET /v1/platforms `max_thread_parts`).
import type { components } from '@herald/client';
import { Radios } from '../../ui.tsx';
import type { Format, PlatformId, Target } from './model.ts';
import type { PartProps } from './source-fields.tsx';

type Platform = components['schemas']['Platform'];

const takesThreads = (p: Platform | undefined) => Number(p?.limits.max_thread_parts ?? 0) > 1;

export function TargetFields({ form, set, platforms }: PartProps & { platforms: Platform[] }) {
  const change = (i: number, patch: Partial<Target>) =>
    set(
      'targets',
      form.targets.map((t, j) => {
        if (j !== i) return t;
        const next = { ...t, ...patch };
        if (next.format === 'thread' && !takesThreads(platforms.find((p) => p.id === next.platform)))
          next.format = 'post';
        return next;
      }),
    );
  return (
    <fieldset className="stack">
      <legend>Outputs</legend>
      {form.targets.length === 0 ? <p className="empty">No output yet: add at least one.</p> : null}
      <ol className="targets-edit">
        {form.targets.map((t, i) => (
          <li key={i} className="inline">
            <label>
              Platform of output {i + 1}
              <select value={t.platform} onChange={(e) => change(i, { platform: e.target.value as PlatformId })}>
                {platforms.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Format of output {i + 1}
              <select value={t.format} onChange={(e) => change(i, { format: e.target.value as Format })}>
                {takesThreads(platforms.find((p) => p.id === t.platform)) ? (
                  <option value="thread">thread</option>
                ) : null}
                <option value="post">post</option>
                <option value="caption">caption</option>
              </select>
            </label>
            <label>
              Variants of output {i + 1}
              <input
                type="number"
                min={1}
                max={5}
                value={t.count}
                onChange={(e) => change(i, { count: Number(e.target.value) || 1 })}
              />
            </label>
            <button
              type="button"
              className="secondary small"
              onClick={() =>
                set(
                  'targets',
                  form.targets.filter((_, j) => j !== i),
                )
              }
            >
              Remove output {i + 1}
            </button>
          </li>
        ))}
      </ol>
      <div>
        <button
          type="button"
          className="secondary small"
          disabled={form.targets.length >= 10}
          onClick={() => set('targets', [...form.targets, { platform: 'linkedin', format: 'post', count: 1 }])}
        >
          Add an output
        </button>
      </div>
    </fieldset>
  );
}

export function OptionFields({ form, set }: PartProps) {
  return (
    <fieldset className="stack">
      <legend>Options</legend>
      <div className="inline">
        <label>
          Tone (for a model)
          <input value={form.tone} onChange={(e) => set('tone', e.target.value)} />
        </label>
        <label>
          Language (BCP 47, for a model)
          <input value={form.language} onChange={(e) => set('language', e.target.value)} placeholder="en" />
        </label>
      </div>
      <label>
        Call to action (ends each output)
        <input value={form.cta} onChange={(e) => set('cta', e.target.value)} />
      </label>
      <label>
        Link (empty: the article&apos;s own URL)
        <input type="url" value={form.link} onChange={(e) => set('link', e.target.value)} />
      </label>
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
          utm_campaign (empty: repurpose)
          <input value={form.utmCampaign} onChange={(e) => set('utmCampaign', e.target.value)} />
        </label>
      </div>
      <label className="check">
        <input type="checkbox" checked={form.hashtags} onChange={(e) => set('hashtags', e.target.checked)} />
        <span>Add hashtags (the brand&apos;s and the source&apos;s keywords)</span>
      </label>
    </fieldset>
  );
}

const MODES: Array<[FormState['mode'], string]> = [
  ['draft', 'Drafts'],
  ['approval', 'The approval queue'],
  ['schedule', 'Scheduled posts'],
];

export function OutputFields({ form, set }: PartProps) {
  const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return (
    <fieldset className="stack">
      <legend>Send the outputs to</legend>
      <Radios name="mode" choices={MODES} value={form.mode} onChange={(value) => set('mode', value)} />
      {form.mode !== 'draft' ? (
        <div className="inline">
          <label>
            {form.mode === 'schedule' ? 'First post at' : 'Go out at (optional: at once when approved)'}
            <input
              type="datetime-local"
              required={form.mode === 'schedule'}
              value={form.firstAt}
              onChange={(e) => set('firstAt', e.target.value)}
              aria-describedby="first-at-zone"
            />
          </label>
          <label>
            Minutes between posts
            <input type="number" min={1} value={form.spacing} onChange={(e) => set('spacing', e.target.value)} />
          </label>
          <p id="first-at-zone" className="meta">
            In your time zone, {ZONE}.
          </p>
        </div>
      ) : null}
    </fieldset>
  );
}

type FormState = PartProps['form'];
