// Account settings → API keys: the workspace and brand ids, the key list, creating a key (shown once), revoking
// with confirmation, and the three-step rotation (new key with the same scopes, switch, revoke the old one).
import { useState } from 'react';
import {
  Confirm,
  CopyField,
  ErrorNote,
  formatTime,
  PageTitle,
  Ready,
  SecretOnce,
  Show,
  useAction,
  useApp,
  useLoad,
} from '../ui.tsx';
import { KeyForm, useScopes, type ApiKey, type KeyDraft } from './key-form.tsx';
import { RotateKey } from './key-rotate.tsx';

export interface CreatedKey extends ApiKey {
  secret: string;
}

export function KeysPage() {
  const { herald, workspace } = useApp();
  const calls = herald;
  const keys = useLoad(
    async () => (await calls.GET('/keys', { params: { query: { limit: 100 } } })) as { items: ApiKey[] },
    [herald],
  );
  // Loaded with the page, so the form opens whole.
  const scopes = useScopes();
  const [creating, setCreating] = useState(false);
  const [shown, setShown] = useState<CreatedKey | undefined>();
  const [rotating, setRotating] = useState<ApiKey | undefined>();
  const revoke = useAction();

  const create = async (draft: KeyDraft) => {
    const made = (await calls.POST('/keys', { body: draft })) as CreatedKey;
    setShown(made);
    setCreating(false);
    keys.reload();
  };

  return (
    <>
      <PageTitle>API keys</PageTitle>
      <section aria-labelledby="ids-title" className="card">
        <h2 id="ids-title">Ids for your integrations</h2>
        {workspace ? (
          <>
            <CopyField label="Workspace id" value={workspace.id} />
            {workspace.brands.map((brand) => (
              <CopyField key={brand.id} label={`Brand id (${brand.name})`} value={brand.id} />
            ))}
          </>
        ) : null}
      </section>

      {shown ? (
        <SecretOnce title={`New key “${shown.name}”`} secret={shown.secret} onDone={() => setShown(undefined)} />
      ) : null}

      {rotating ? (
        <RotateKey
          old={rotating}
          onDone={() => {
            setRotating(undefined);
            keys.reload();
          }}
        />
      ) : null}

      <Ready loads={[keys, scopes]} what="API keys">
        <section aria-labelledby="list-title">
          <div className="row">
            <h2 id="list-title">Keys</h2>
            {!creating ? (
              <button type="button" onClick={() => setCreating(true)}>
                Create a key
              </button>
            ) : null}
          </div>
          {creating ? <KeyForm scopes={scopes} onSubmit={create} onCancel={() => setCreating(false)} /> : null}
          <ErrorNote error={revoke.error} />
          <Show loaded={keys} what="API keys" empty={(d) => d.items.length === 0}>
            {(data) => (
              <div className="table-wrap">
                <table>
                  <caption className="sr-only">API keys of this account</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Key</th>
                      <th scope="col">Scopes</th>
                      <th scope="col">Created</th>
                      <th scope="col">Last used</th>
                      <th scope="col">Expires</th>
                      <th scope="col">Actions</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.items.map((key) => (
                      <tr key={key.id} data-key-id={key.id}>
                        <th scope="row">
                          {key.name}
                          {key.oauth_client ? <span className="badge">via {key.oauth_client.name}</span> : null}
                          {key.revoked_at ? <span className="badge muted">revoked</span> : null}
                        </th>
                        <td>
                          <code>
                            {key.prefix}…{key.last_four}
                          </code>
                        </td>
                        <td className="scopes">{key.scopes.join(', ')}</td>
                        <td>{formatTime(key.created_at)}</td>
                        <td>{key.last_used_at ? formatTime(key.last_used_at) : 'never'}</td>
                        <td>{key.expires_at ? formatTime(key.expires_at) : 'never'}</td>
                        <td className="actions">
                          {key.revoked_at ? null : (
                            <>
                              <button type="button" className="secondary small" onClick={() => setRotating(key)}>
                                Rotate
                              </button>
                              <Confirm
                                label="Revoke"
                                title={`Revoke “${key.name}”?`}
                                description="Every call made with this key is refused from now on. This cannot be undone."
                                action="Revoke the key"
                                onConfirm={async () => {
                                  await revoke.run(() =>
                                    calls.DELETE('/keys/{id}', { params: { path: { id: key.id } } }),
                                  );
                                  keys.reload();
                                }}
                              />
                            </>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </Show>
        </section>
      </Ready>
    </>
  );
}
