// Connections: the accounts of this workspace (status, sandbox marked), connect links per platform, reconnect
// when a token needs it, refresh and disconnect.
import { useState } from 'react';
import type { components } from '@herald/client';
import { Confirm, ErrorNote, formatTime, PageTitle, Ready, Show, useAction, useApp, useLoad } from '../ui.tsx';

type Connection = components['schemas']['Connection'];
type Platform = components['schemas']['Platform'];
type ConnectLink = components['schemas']['ConnectLink'];

export function ConnectionsPage() {
  const { herald, workspace } = useApp();
  const connections = useLoad(async () => {
    const items: Connection[] = [];
    for await (const c of herald.list('/connections', { params: { query: { limit: 100 } } })) items.push(c);
    return items;
  }, [herald]);
  const platforms = useLoad(() => herald.GET('/platforms'), [herald]);
  const action = useAction();
  const [link, setLink] = useState<ConnectLink | undefined>();
  const mode = workspace?.mode ?? 'test';

  const connect = async (platform: Connection['platform']) => {
    const made = await action.run(() => herald.POST('/connections/connect-links', { body: { platform } }));
    if (made) setLink(made);
  };

  return (
    <>
      <PageTitle>Connections</PageTitle>
      <ErrorNote error={action.error} />
      {link ? (
        <p className="card" role="status">
          Open the link to connect {link.platform}
          {link.sandbox ? ' (sandbox)' : ''}:{' '}
          <a href={link.url} target="_blank" rel="noreferrer">
            connect {link.platform}
          </a>{' '}
          (valid until {formatTime(link.expires_at)}).
        </p>
      ) : null}
      <Ready loads={[connections, platforms]} what="connections">
        <section aria-labelledby="accounts-title">
          <h2 id="accounts-title">Connected accounts</h2>
          <Show loaded={connections} what="connections" empty={(d) => d.length === 0}>
            {(items) => (
              <div className="table-wrap">
                <table>
                  <caption className="sr-only">Connected accounts</caption>
                  <thead>
                    <tr>
                      <th scope="col">Account</th>
                      <th scope="col">Platform</th>
                      <th scope="col">Status</th>
                      <th scope="col">Token expires</th>
                      <th scope="col">Actions</th>
                    </tr>
                  </thead>
                  <tbody>
                    {items.map((c) => (
                      <tr key={c.id}>
                        <th scope="row">
                          {c.display_name ?? c.handle} <span className="meta">@{c.handle}</span>
                          {c.sandbox ? <span className="badge">sandbox</span> : null}
                        </th>
                        <td>{c.platform}</td>
                        <td>
                          <span className={`status ${c.status}`}>{c.status}</span>
                        </td>
                        <td>{formatTime(c.token_expires_at)}</td>
                        <td className="actions">
                          {c.status !== 'active' ? (
                            <button type="button" className="small" onClick={() => void connect(c.platform)}>
                              Reconnect
                            </button>
                          ) : (
                            <button
                              type="button"
                              className="secondary small"
                              onClick={() =>
                                void action
                                  .run(() =>
                                    herald.POST('/connections/{id}/refresh', { params: { path: { id: c.id } } }),
                                  )
                                  .then(connections.reload)
                              }
                            >
                              Refresh
                            </button>
                          )}
                          <Confirm
                            label="Disconnect"
                            title={`Disconnect ${c.handle} on ${c.platform}?`}
                            description="Scheduled posts for this account fail until it is connected again."
                            action="Disconnect"
                            onConfirm={async () => {
                              await action.run(() =>
                                herald.DELETE('/connections/{id}', { params: { path: { id: c.id } } }),
                              );
                              connections.reload();
                            }}
                          />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </Show>
        </section>
        <section aria-labelledby="connect-title">
          <h2 id="connect-title">Connect an account</h2>
          <Show loaded={platforms} what="platforms">
            {(page) => (
              <ul className="grid">
                {(page.items as Platform[]).map((p) => {
                  const availability = p.connect?.[mode];
                  return (
                    <li key={p.id} className="card">
                      <strong>{p.name}</strong>
                      {availability?.available ? (
                        <button
                          type="button"
                          className="small"
                          onClick={() => void connect(p.id as Connection['platform'])}
                        >
                          Connect {p.name}
                        </button>
                      ) : (
                        <span className="meta">{availability?.reason ?? 'Not available here.'}</span>
                      )}
                    </li>
                  );
                })}
              </ul>
            )}
          </Show>
        </section>
      </Ready>
    </>
  );
}
