// Shared pieces of every page: the signed-in context, the loader hook, errors in words, copy buttons and
// confirmations (Radix AlertDialog, so focus, Escape and labels are handled by the primitive).
import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { AlertDialog } from 'radix-ui';
import type { Herald } from '@herald/client';
import { describeError, type Me, type MeWorkspace } from './api.ts';

export interface AppState {
  me: Me;
  workspace: MeWorkspace | undefined;
  herald: Herald;
  selectWorkspace(id: string): void;
  reloadMe(): Promise<void>;
  signOut(): Promise<void>;
}

export const AppContext = createContext<AppState | undefined>(undefined);

export function useApp(): AppState {
  const state = useContext(AppContext);
  if (!state) throw new Error('useApp outside the signed-in layout');
  return state;
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/** Runs `load` when `deps` change; the latest answer wins, so a slow earlier call never overwrites a later one. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const call = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => call === latest.current && setState({ data, loading: false }),
      (error: unknown) => call === latest.current && setState({ error, loading: false }),
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/**
 * `loaded` as long as its answer is for `id`. While the answer is still the one for an earlier id (or for none, the
 * `null` a load without an id gives), it counts as loading, so a page never renders one subject's data as another's.
 */
export function loadedFor<T extends { id: string } | null>(loaded: Loaded<T>, id: string | undefined): Loaded<T> {
  if (loaded.error || (id ? loaded.data?.id === id : loaded.data !== undefined)) return loaded;
  return { ...loaded, data: undefined };
}

/** An API error in words with its code and request id (docs/api.md "Errors"). */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const { message, code, requestId } = describeError(error);
  return (
    <div className="error" role="alert">
      <p>{message}</p>
      <p className="meta">
        Code <code>{code}</code>
        {requestId ? (
          <>
            {' '}
            · request <code>{requestId}</code>
          </>
        ) : null}
      </p>
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/** Loading, error and empty states around a loaded value. */
export function Show<T>({
  loaded,
  what,
  empty,
  children,
}: {
  loaded: Loaded<T>;
  what: string;
  empty?: (data: T) => boolean;
  children: (data: T) => ReactNode;
}) {
  if (loaded.error) return <ErrorNote error={loaded.error} />;
  if (loaded.data === undefined) return <Loading what={what} />;
  if (empty?.(loaded.data)) return <Empty>No {what} yet.</Empty>;
  return <>{children(loaded.data)}</>;
}

/**
 * Holds a page's sections back until every load they need has answered, so they appear together instead of
 * pushing each other down as each arrives (no layout shift).
 */
export function Ready({ loads, what, children }: { loads: Array<Loaded<unknown>>; what: string; children: ReactNode }) {
  if (loads.some((l) => l.data === undefined && !l.error)) return <Loading what={what} />;
  return <>{children}</>;
}

/** One radio button per `[value, label]` choice, all under `name`. */
export function Radios<T extends string>({
  name,
  choices,
  value,
  onChange,
}: {
  name: string;
  choices: ReadonlyArray<readonly [T, string]>;
  value: T;
  onChange(value: T): void;
}) {
  return (
    <>
      {choices.map(([choice, label]) => (
        <label key={choice} className="check">
          <input type="radio" name={name} value={choice} checked={value === choice} onChange={() => onChange(choice)} />
          <span>{label}</span>
        </label>
      ))}
    </>
  );
}

/** A select's options for an enumeration, each valued and shown as itself. */
export function Options({ values }: { values: readonly string[] }) {
  return (
    <>
      {values.map((v) => (
        <option key={v}>{v}</option>
      ))}
    </>
  );
}

/** The workspace's brands as a select's options, valued by id; the select adds its own "any" choice if it has one. */
export function BrandOptions() {
  const { workspace } = useApp();
  return (
    <>
      {workspace?.brands.map((b) => (
        <option key={b.id} value={b.id}>
          {b.name}
        </option>
      ))}
    </>
  );
}

export function CopyButton({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="secondary small"
      aria-label={`Copy ${label}`}
      onClick={() => {
        void navigator.clipboard?.writeText(value).then(
          () => setCopied(true),
          () => setCopied(false),
        );
      }}
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

/** A value with its copy button, e.g. an id or a secret. */
export function CopyField({ label, value }: { label: string; value: string }) {
  return (
    <div className="copy-field">
      <span className="label">{label}</span>
      <code data-testid={`value-${label}`}>{value}</code>
      <CopyButton value={value} label={label} />
    </div>
  );
}

/** A secret shown once: the warning, the value, a copy button, and a button that removes it from the page. */
export function SecretOnce({ title, secret, onDone }: { title: string; secret: string; onDone(): void }) {
  return (
    <section className="secret-once" aria-label={title}>
      <h3>{title}</h3>
      <p className="warning">
        This is the only time it is shown. Copy it now and store it somewhere safe: Herald keeps only a hash.
      </p>
      <CopyField label="secret" value={secret} />
      <button type="button" onClick={onDone}>
        I have stored it
      </button>
    </section>
  );
}

/** A button that asks first (destructive actions: revoke, remove, disconnect). */
export function Confirm({
  label,
  title,
  description,
  action,
  onConfirm,
}: {
  label: string;
  title: string;
  description: string;
  action: string;
  onConfirm(): void | Promise<void>;
}) {
  return (
    <AlertDialog.Root>
      <AlertDialog.Trigger asChild>
        <button type="button" className="danger small">
          {label}
        </button>
      </AlertDialog.Trigger>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="overlay" />
        <AlertDialog.Content className="dialog">
          <AlertDialog.Title>{title}</AlertDialog.Title>
          <AlertDialog.Description>{description}</AlertDialog.Description>
          <div className="actions">
            <AlertDialog.Cancel asChild>
              <button type="button" className="secondary">
                Keep it
              </button>
            </AlertDialog.Cancel>
            <AlertDialog.Action asChild>
              <button type="button" className="danger" onClick={() => void onConfirm()}>
                {action}
              </button>
            </AlertDialog.Action>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}

/** Runs a mutating call, keeping its error on screen until the next try. */
export function useAction(): {
  busy: boolean;
  error: unknown;
  run<T>(work: () => Promise<T>): Promise<T | undefined>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = useCallback(async <T,>(work: () => Promise<T>) => {
    setBusy(true);
    setError(undefined);
    try {
      return await work();
    } catch (caught) {
      setError(caught);
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}

export function formatTime(value: string | null | undefined): string {
  if (!value) return '—';
  return new Date(value).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function PageTitle({ children }: { children: ReactNode }) {
  useEffect(() => {
    if (typeof children === 'string') document.title = `${children} · Herald`;
  }, [children]);
  return <h1>{children}</h1>;
}
