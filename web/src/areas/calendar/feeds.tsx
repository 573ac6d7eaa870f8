// ICS subscription links (docs/calendar.md "ICS feeds"): create one (its secret URL shown once, with a copy
// button), list the active ones, revoke one after a confirmation.
import { useState, type FormEvent } from 'react';
import {
  BrandOptions,
  Confirm,
  ErrorNote,
  formatTime,
  SecretOnce,
  Show,
  useAction,
  useApp,
  useLoad,
} from '../../ui.tsx';
import { TYPES, type EventType } from './events.ts';

export function Feeds() {
  const { herald, workspace } = useApp();
  const feeds = useLoad(() => herald.GET('/calendar/feeds'), [herald]);
  const [name, setName] = useState('');
  const [brand, setBrand] = useState('');
  const [types, setTypes] = useState<EventType[]>([...TYPES]);
  const [created, setCreated] = useState<{ name: string; url: string } | undefined>();
  const create = useAction();
  const revoke = useAction();
  const brandName = (id: string) => workspace?.brands.find((b) => b.id === id)?.name ?? id;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const made = await create.run(() =>
      herald.POST('/calendar/feeds', { body: { name, types, ...(brand ? { brand_id: brand } : {}) } }),
    );
    if (made) {
      setCreated({ name: made.feed.name, url: made.url });
      setName('');
      feeds.reload();
    }
  };

  return (
    <section className="cal-feeds" aria-labelledby="feeds-heading">
      <h2 id="feeds-heading">Subscribe from a calendar app</h2>
      <p className="meta">
        An ICS feed is a secret address that Google Calendar, Outlook or Apple Calendar subscribe to without a key. It
        shows the last 31 and the next 92 days; anyone holding the address can read it, so revoke one that leaks.
      </p>
      {created ? (
        <SecretOnce
          title={`Subscription address of “${created.name}”`}
          secret={created.url}
          onDone={() => setCreated(undefined)}
        />
      ) : null}
      <form className="card stack" aria-label="New ICS feed" onSubmit={(e) => void submit(e)}>
        <h3>Create a feed</h3>
        <div className="inline">
          <label>
            Feed name
            <input required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
          </label>
          <label>
            Brand
            <select value={brand} onChange={(e) => setBrand(e.target.value)}>
              <option value="">every brand</option>
              <BrandOptions />
            </select>
          </label>
        </div>
        <fieldset>
          <legend>Shows</legend>
          {TYPES.map((type) => (
            <label key={type} className="check">
              <input
                type="checkbox"
                checked={types.includes(type)}
                onChange={(e) => setTypes((all) => (e.target.checked ? [...all, type] : all.filter((t) => t !== type)))}
              />
              <span>{type === 'post' ? 'posts' : 'automation runs to come'}</span>
            </label>
          ))}
        </fieldset>
        <ErrorNote error={create.error} />
        <div className="actions">
          <button type="submit" disabled={create.busy || types.length === 0}>
            Create the feed
          </button>
        </div>
      </form>
      <h3>Active feeds</h3>
      <ErrorNote error={revoke.error} />
      <Show loaded={feeds} what="ICS feeds" empty={(page) => page.items.length === 0}>
        {(page) => (
          <ul className="list cal-feed-list">
            {page.items.map((feed) => (
              <li key={feed.id} data-feed-id={feed.id}>
                <strong>{feed.name}</strong>
                <span className="meta">
                  address ending <code>…{feed.token_last4}.ics</code> · {feed.types.join(', ').replace('_', ' ')} ·{' '}
                  {feed.brand_ids ? feed.brand_ids.map(brandName).join(', ') : 'every brand'}
                  {feed.platforms ? ` · ${feed.platforms.join(', ')}` : ''} · created {formatTime(feed.created_at)} ·
                  last read {feed.last_read_at ? formatTime(feed.last_read_at) : 'never'}
                </span>
                <Confirm
                  label={`Revoke`}
                  title={`Revoke the feed “${feed.name}”?`}
                  description="Its address stops working at once; calendars subscribed to it stop updating."
                  action="Revoke"
                  onConfirm={async () => {
                    await revoke.run(() =>
                      herald.DELETE('/calendar/feeds/{id}', { params: { path: { id: feed.id } } }),
                    );
                    feeds.reload();
                  }}
                />
              </li>
            ))}
          </ul>
        )}
      </Show>
    </section>
  );
}
