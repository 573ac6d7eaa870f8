// The new-key form: a name, scopes picked from the catalogue (grouped by area, a sentence each), an optional
// expiry date and an optional restriction to some workspaces and brands.
import { useMemo, useState, type FormEvent } from 'react';
import type { Scope } from '../api.ts';
import { ErrorNote, Show, useAction, useApp, useLoad, type Loaded } from '../ui.tsx';

export interface ApiKey {
  id: string;
  object: 'api_key';
  name: string;
  prefix: string;
  last_four: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  workspace_ids: string[] | null;
  brand_ids: string[] | null;
  oauth_client: { name: string } | null;
}

export interface KeyDraft {
  name: string;
  scopes: Scope[];
  expires_at?: string;
  workspace_ids?: string[];
  brand_ids?: string[];
}

export interface ScopeEntry {
  scope: Scope;
  area: string;
  description: string;
}

/** The scope catalogue (GET /v1/scopes): every scope with its area and the sentence saying what it allows. */
export function useScopes() {
  const { herald } = useApp();
  return useLoad(async () => {
    const page = await herald.GET('/scopes');
    return page.items.map((item): ScopeEntry => ({
      scope: item.name as Scope,
      area: item.area,
      description: item.description,
    }));
  }, [herald]);
}

/** End of the chosen day in the user's own time zone, as the API's UTC timestamp. */
function endOfDay(date: string): string {
  return new Date(`${date}T23:59:59.999`).toISOString();
}

export function KeyForm({
  scopes,
  initial,
  onSubmit,
  onCancel,
  submitLabel = 'Create the key',
}: {
  scopes: Loaded<ScopeEntry[]>;
  initial?: Partial<KeyDraft>;
  onSubmit(draft: KeyDraft): Promise<void>;
  onCancel?(): void;
  submitLabel?: string;
}) {
  const { me } = useApp();
  const [name, setName] = useState(initial?.name ?? '');
  const [picked, setPicked] = useState<Set<Scope>>(new Set(initial?.scopes ?? []));
  const [expiry, setExpiry] = useState('');
  const [workspaces, setWorkspaces] = useState<Set<string>>(new Set(initial?.workspace_ids ?? []));
  const [brands, setBrands] = useState<Set<string>>(new Set(initial?.brand_ids ?? []));
  const { busy, error, run } = useAction();
  const byArea = useMemo(() => {
    const groups = new Map<string, ScopeEntry[]>();
    for (const entry of scopes.data ?? []) groups.set(entry.area, [...(groups.get(entry.area) ?? []), entry]);
    return [...groups];
  }, [scopes.data]);
  const toggle = <T,>(set: Set<T>, value: T, update: (next: Set<T>) => void) => {
    const next = new Set(set);
    if (next.has(value)) next.delete(value);
    else next.add(value);
    update(next);
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await run(() =>
      onSubmit({
        name,
        scopes: [...picked],
        ...(expiry ? { expires_at: endOfDay(expiry) } : {}),
        ...(workspaces.size ? { workspace_ids: [...workspaces] } : {}),
        ...(brands.size ? { brand_ids: [...brands] } : {}),
      }),
    );
  };
  return (
    <form className="card stack" onSubmit={(event) => void submit(event)} aria-label="New API key">
      <label>
        Name
        <input
          required
          maxLength={100}
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="e.g. CI pipeline"
        />
      </label>
      <fieldset>
        <legend>Scopes: what the key may do</legend>
        <Show loaded={scopes} what="scopes">
          {() =>
            byArea.map(([area, entries]) => (
              <fieldset key={area} className="scope-area">
                <legend>{area}</legend>
                {entries.map((entry) => (
                  <label key={entry.scope} className="check">
                    <input
                      type="checkbox"
                      name="scope"
                      value={entry.scope}
                      checked={picked.has(entry.scope)}
                      onChange={() => toggle(picked, entry.scope, setPicked)}
                    />
                    <span>
                      <code>{entry.scope}</code> — {entry.description}
                    </span>
                  </label>
                ))}
              </fieldset>
            ))
          }
        </Show>
      </fieldset>
      <label>
        Expires on (optional)
        <input
          type="date"
          value={expiry}
          min={new Date().toISOString().slice(0, 10)}
          onChange={(e) => setExpiry(e.target.value)}
        />
      </label>
      <fieldset>
        <legend>Restrict to workspaces and brands (optional: none ticked means all of yours)</legend>
        {me.workspaces.map((w) => (
          <div key={w.id} className="restrict">
            <label className="check">
              <input
                type="checkbox"
                checked={workspaces.has(w.id)}
                onChange={() => toggle(workspaces, w.id, setWorkspaces)}
              />
              <span>
                Workspace {w.name} ({w.mode})
              </span>
            </label>
            {w.brands.map((b) => (
              <label key={b.id} className="check indent">
                <input type="checkbox" checked={brands.has(b.id)} onChange={() => toggle(brands, b.id, setBrands)} />
                <span>Brand {b.name}</span>
              </label>
            ))}
          </div>
        ))}
      </fieldset>
      <ErrorNote error={error} />
      <div className="actions">
        {onCancel ? (
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
        <button type="submit" disabled={busy || picked.size === 0}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}
