// Webhooks: endpoints and their events, a new endpoint's secret (shown once), test, secret rotation (shown once),
// and each endpoint's deliveries with their attempts and replay.
import { useState, type FormEvent } from 'react';
import type { components } from '@herald/client';
import {
  Confirm,
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

type Endpoint = components['schemas']['WebhookEndpoint'];
type EventType = components['schemas']['CreateWebhookRequest']['events'][number];

/** The event types an endpoint can subscribe to, read from the API's own description (GET /v1/openapi.json), so
 * a new event type appears here without a change to the dashboard. */
async function eventTypes(herald: ReturnType<typeof useApp>['herald']): Promise<EventType[]> {
  const document = (await herald.GET('/openapi.json')) as unknown as {
    components: { schemas: Record<string, { properties?: { events?: { items?: { enum?: EventType[] } } } }> };
  };
  return document.components.schemas.CreateWebhookRequest?.properties?.events?.items?.enum ?? ['*'];
}

function Deliveries({ endpoint }: { endpoint: Endpoint }) {
  const { herald } = useApp();
  const deliveries = useLoad(
    () => herald.GET('/webhooks/{id}/deliveries', { params: { path: { id: endpoint.id }, query: { limit: 20 } } }),
    [herald, endpoint.id],
  );
  const replay = useAction();
  return (
    <section aria-label={`Deliveries to ${endpoint.url}`}>
      <ErrorNote error={replay.error} />
      <Show loaded={deliveries} what="deliveries" empty={(d) => d.items.length === 0}>
        {(page) => (
          <ul className="list">
            {page.items.map((d) => (
              <li key={d.id}>
                <details>
                  <summary>
                    {d.event_type} <span className={`status ${d.status}`}>{d.status}</span>{' '}
                    <span className="meta">
                      {d.attempt_count} attempt{d.attempt_count === 1 ? '' : 's'} · {formatTime(d.created_at)}
                    </span>
                  </summary>
                  <ol>
                    {d.attempts.map((a) => (
                      <li key={a.id}>
                        {formatTime(a.started_at)} ({a.trigger}):{' '}
                        {a.status_code ? `HTTP ${a.status_code}` : 'no answer'}
                        {a.error ? ` — ${a.error.message} (${a.error.code})` : ''} · {a.duration_ms} ms
                      </li>
                    ))}
                  </ol>
                  <button
                    type="button"
                    className="secondary small"
                    onClick={() =>
                      void replay
                        .run(() =>
                          herald.POST('/webhooks/{id}/deliveries/{delivery_id}/retry', {
                            params: { path: { id: endpoint.id, delivery_id: d.id } },
                          }),
                        )
                        .then(deliveries.reload)
                    }
                  >
                    Replay
                  </button>
                </details>
              </li>
            ))}
          </ul>
        )}
      </Show>
    </section>
  );
}

/** Deliveries load when their section is opened, so a page of endpoints never grows under the reader. */
function DeliveriesToggle({ endpoint }: { endpoint: Endpoint }) {
  const [open, setOpen] = useState(false);
  return (
    <details onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Recent deliveries</summary>
      {open ? <Deliveries endpoint={endpoint} /> : null}
    </details>
  );
}

export function WebhooksPage() {
  const { herald } = useApp();
  const endpoints = useLoad(() => herald.GET('/webhooks', { params: { query: { limit: 100 } } }), [herald]);
  const events = useLoad(() => eventTypes(herald), [herald]);
  const [url, setUrl] = useState('');
  const [picked, setPicked] = useState<EventType[]>(['*']);
  const [secret, setSecret] = useState<{ title: string; value: string } | undefined>();
  const create = useAction();
  const act = useAction();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const made = await create.run(() => herald.POST('/webhooks', { body: { url, events: picked } }));
    if (made) {
      setSecret({ title: `Signing secret of ${made.url}`, value: (made as { secret: string }).secret });
      setUrl('');
      endpoints.reload();
    }
  };

  return (
    <>
      <PageTitle>Webhooks</PageTitle>
      {secret ? <SecretOnce title={secret.title} secret={secret.value} onDone={() => setSecret(undefined)} /> : null}
      <Ready loads={[endpoints, events]} what="webhooks">
        <form className="card stack" onSubmit={(event) => void submit(event)} aria-label="New endpoint">
          <h2>Add an endpoint</h2>
          <label>
            URL (https)
            <input
              type="url"
              required
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              placeholder="https://example.com/herald"
            />
          </label>
          <fieldset className="events">
            <legend>Events</legend>
            {(events.data ?? ['*']).map((name) => (
              <label key={name} className="check">
                <input
                  type="checkbox"
                  checked={picked.includes(name)}
                  onChange={(e) =>
                    setPicked((all) => (e.target.checked ? [...all, name] : all.filter((x) => x !== name)))
                  }
                />
                <span>{name === '*' ? 'every event' : name}</span>
              </label>
            ))}
          </fieldset>
          <ErrorNote error={create.error} />
          <button type="submit" disabled={create.busy || picked.length === 0}>
            Add the endpoint
          </button>
        </form>
        <ErrorNote error={act.error} />
        <Show loaded={endpoints} what="webhook endpoints" empty={(d) => d.items.length === 0}>
          {(page) => (
            <ul className="list endpoints">
              {page.items.map((e) => (
                <li key={e.id} className="card">
                  <h3>
                    {e.url}{' '}
                    <span className={`status ${e.enabled ? 'active' : 'disconnected'}`}>
                      {e.enabled ? 'enabled' : `disabled (${e.disabled_reason ?? 'manual'})`}
                    </span>
                  </h3>
                  <p className="meta">Events: {e.events.join(', ')}</p>
                  <div className="actions">
                    <button
                      type="button"
                      className="secondary small"
                      onClick={() =>
                        void act.run(() => herald.POST('/webhooks/{id}/test', { params: { path: { id: e.id } } }))
                      }
                    >
                      Send a test event
                    </button>
                    <Confirm
                      label="Rotate secret"
                      title="Rotate the signing secret?"
                      description="A new secret is shown once. The old one keeps signing for 24 hours so you can switch."
                      action="Rotate"
                      onConfirm={async () => {
                        const rotated = await act.run(() =>
                          herald.POST('/webhooks/{id}/rotate-secret', {
                            params: { path: { id: e.id } },
                            body: { previous_secret_expires_in: 86_400 },
                          }),
                        );
                        if (rotated)
                          setSecret({
                            title: `New signing secret of ${e.url}`,
                            value: (rotated as { secret: string }).secret,
                          });
                      }}
                    />
                    <Confirm
                      label="Delete"
                      title={`Delete the endpoint ${e.url}?`}
                      description="No more events are sent to it."
                      action="Delete"
                      onConfirm={async () => {
                        await act.run(() => herald.DELETE('/webhooks/{id}', { params: { path: { id: e.id } } }));
                        endpoints.reload();
                      }}
                    />
                  </div>
                  <DeliveriesToggle endpoint={e} />
                </li>
              ))}
            </ul>
          )}
        </Show>
      </Ready>
    </>
  );
}
