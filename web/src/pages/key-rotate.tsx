// Key rotation in the product's three steps: create a new key with the same scopes (shown once), switch your
// systems to it, then revoke the old one.
import { useState } from 'react';
import type { Scope } from '../api.ts';
import { CopyField, ErrorNote, useAction, useApp } from '../ui.tsx';
import type { ApiKey } from './key-form.tsx';

export function RotateKey({ old, onDone }: { old: ApiKey; onDone(): void }) {
  const { herald } = useApp();
  const calls = herald;
  const [step, setStep] = useState<1 | 2 | 3>(1);
  const [secret, setSecret] = useState<string | undefined>();
  const [switched, setSwitched] = useState(false);
  const { busy, error, run } = useAction();
  const name = `${old.name} (rotated ${new Date().toISOString().slice(0, 10)})`;
  // The same lifetime from today, not the old key's end date: a rotation often happens because that date is near.
  const lifetimeMs = old.expires_at ? Date.parse(old.expires_at) - Date.parse(old.created_at) : undefined;

  const create = async () => {
    const made = await run(
      async () =>
        (await calls.POST('/keys', {
          body: {
            name,
            scopes: old.scopes as Scope[],
            ...(old.workspace_ids?.length ? { workspace_ids: old.workspace_ids } : {}),
            ...(old.brand_ids?.length ? { brand_ids: old.brand_ids } : {}),
            ...(lifetimeMs && lifetimeMs > 0 ? { expires_at: new Date(Date.now() + lifetimeMs).toISOString() } : {}),
          },
        })) as { secret: string },
    );
    if (made) {
      setSecret(made.secret);
      setStep(2);
    }
  };
  const revokeOld = async () => {
    const done = await run(() => calls.DELETE('/keys/{id}', { params: { path: { id: old.id } } }));
    if (done !== undefined) onDone();
  };

  return (
    <section className="card rotate" aria-labelledby="rotate-title">
      <h2 id="rotate-title">Rotate “{old.name}”</h2>
      <ol className="steps">
        <li aria-current={step === 1 ? 'step' : undefined}>
          <h3>1. Create a new key with the same scopes</h3>
          <p>
            “{name}” gets {old.scopes.join(', ')}
            {old.workspace_ids?.length || old.brand_ids?.length ? ', limited to the same workspaces and brands' : ''}
            {lifetimeMs && lifetimeMs > 0
              ? `, and expires ${Math.round(lifetimeMs / 86_400_000)} days from now, the old key's lifetime`
              : ''}
            .
          </p>
          {step === 1 ? (
            <button type="button" onClick={() => void create()} disabled={busy}>
              Create the new key
            </button>
          ) : null}
        </li>
        <li aria-current={step === 2 ? 'step' : undefined}>
          <h3>2. Switch your systems to the new key</h3>
          {step === 2 && secret ? (
            <>
              <p className="warning">This is the only time the new key is shown. Copy it now.</p>
              <CopyField label="new key" value={secret} />
              <label className="check">
                <input type="checkbox" checked={switched} onChange={(e) => setSwitched(e.target.checked)} />
                <span>Everything that used the old key now uses the new one</span>
              </label>
              <button
                type="button"
                disabled={!switched}
                onClick={() => {
                  setSecret(undefined);
                  setStep(3);
                }}
              >
                Next
              </button>
            </>
          ) : null}
        </li>
        <li aria-current={step === 3 ? 'step' : undefined}>
          <h3>3. Revoke the old key</h3>
          {step === 3 ? (
            <button type="button" className="danger" onClick={() => void revokeOld()} disabled={busy}>
              Revoke “{old.name}” now
            </button>
          ) : null}
        </li>
      </ol>
      <ErrorNote error={error} />
      <button type="button" className="secondary" onClick={onDone}>
        {step === 1 ? 'Cancel' : 'Close'}
      </button>
    </section>
  );
}
