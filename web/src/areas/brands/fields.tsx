// The settings form's inputs: each labelled, with the API's limit in its hint, bound to one field of the draft.
import type { ReactNode } from 'react';
import { PLATFORMS } from '../../platforms.ts';
import type { Draft, Platform } from './draft.ts';

export type Set = <K extends keyof Draft>(key: K, value: Draft[K]) => void;

type TextKey = { [K in keyof Draft]: Draft[K] extends string ? K : never }[keyof Draft];

export function Text({
  draft,
  set,
  field,
  label,
  hint,
  lines,
  type = 'text',
}: {
  draft: Draft;
  set: Set;
  field: TextKey;
  label: string;
  hint?: string;
  lines?: number;
  type?: 'text' | 'url';
}) {
  return (
    <label>
      {label}
      {hint ? <span className="hint">{hint}</span> : null}
      {lines ? (
        <textarea rows={lines} value={draft[field]} onChange={(e) => set(field, e.target.value)} />
      ) : (
        <input type={type} value={draft[field]} onChange={(e) => set(field, e.target.value)} />
      )}
    </label>
  );
}

export function Choice({
  draft,
  set,
  field,
  label,
  options,
}: {
  draft: Draft;
  set: Set;
  field: TextKey;
  label: string;
  options: Array<[string, string]>;
}) {
  return (
    <label>
      {label}
      <select value={draft[field]} onChange={(e) => set(field, e.target.value)}>
        {options.map(([value, words]) => (
          <option key={value} value={value}>
            {words}
          </option>
        ))}
      </select>
    </label>
  );
}

export function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <fieldset className="card stack brand-section">
      <legend>{title}</legend>
      {children}
    </fieldset>
  );
}

type Apply = 'always' | 'never' | 'platforms';

/** Where one of the brand's additions applies: always, never, or on the platforms ticked. */
export function ApplyRule({
  label,
  value,
  onChange,
}: {
  label: string;
  value: { apply: Apply; platforms: Platform[] };
  onChange(next: { apply: Apply; platforms: Platform[] }): void;
}) {
  return (
    <fieldset className="apply-rule">
      <legend>{label}</legend>
      <label>
        Applies
        <select value={value.apply} onChange={(e) => onChange({ ...value, apply: e.target.value as Apply })}>
          <option value="always">on every platform</option>
          <option value="never">never</option>
          <option value="platforms">only on the platforms below</option>
        </select>
      </label>
      {value.apply === 'platforms' ? (
        <div className="platform-checks">
          {PLATFORMS.map((p) => (
            <label key={p} className="check">
              <input
                type="checkbox"
                checked={value.platforms.includes(p)}
                onChange={(e) =>
                  onChange({
                    ...value,
                    platforms: e.target.checked ? [...value.platforms, p] : value.platforms.filter((x) => x !== p),
                  })
                }
              />
              <span>{p}</span>
            </label>
          ))}
        </div>
      ) : null}
    </fieldset>
  );
}
