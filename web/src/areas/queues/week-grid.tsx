// A queue's week: its slots from Monday to Sunday in the browser's time zone (GET /v1/queues/{id}/slots), each free
// or taken, a taken one showing the post that holds it with a link to it, and the weeks before and after.
import { Link, useParams, useSearchParams } from 'react-router';
import type { components } from '@herald/client';
import { PageTitle, Ready, Show, useApp, useLoad } from '../../ui.tsx';
import {
  addDays,
  BROWSER_ZONE,
  dayHeading,
  isoDate,
  localTime,
  mondayOf,
  parseDate,
  type QueueSlot,
} from './shared.ts';
import './queues.css';

type Post = components['schemas']['Post'];

interface Week {
  slots: QueueSlot[];
  posts: Map<string, Post>;
  /** When the slots were read: what "past" is measured against. */
  now: number;
  /** The week's Monday, local midnight: the page keeps showing this week until the next one has loaded. */
  monday: Date;
}

/** A free slot whose time has gone by can no longer be taken: it is shown as past, not free. */
function stateOf(slot: QueueSlot, now: number): 'taken' | 'free' | 'past' {
  return slot.status === 'free' && new Date(slot.at).getTime() <= now ? 'past' : slot.status;
}

function SlotCell({ slot, post, now }: { slot: QueueSlot; post: Post | undefined; now: number }) {
  const state = stateOf(slot, now);
  return (
    <li className={`slot ${state}`} data-status={state}>
      <span className="slot-time">
        <time dateTime={slot.at}>{localTime(slot.at)}</time>
        {slot.timezone === BROWSER_ZONE ? null : (
          <span className="meta">
            {' '}
            ({slot.time} {slot.timezone})
          </span>
        )}
      </span>
      {slot.status === 'taken' && slot.post_id ? (
        <Link to={`/posts/${slot.post_id}`} className="slot-post">
          {post ? post.content.slice(0, 60) || '(no text)' : slot.post_id}
          {post ? <span className={`status ${post.status}`}>{post.status}</span> : null}
        </Link>
      ) : (
        <span className="slot-free">{state === 'past' ? 'Past' : 'Free'}</span>
      )}
    </li>
  );
}

export function WeekPage() {
  const { id = '' } = useParams();
  const { herald } = useApp();
  const [search, setSearch] = useSearchParams();
  const monday = mondayOf(parseDate(search.get('week')) ?? new Date());
  const from = monday.toISOString();
  const to = addDays(monday, 7).toISOString();
  const queue = useLoad(() => herald.GET('/queues/{id}', { params: { path: { id } } }), [herald, id]);
  const week = useLoad(async (): Promise<Week> => {
    // A week holds at most 336 weekly slots (one every half hour), well under one page of 1,000.
    const answer = await herald.GET('/queues/{id}/slots', {
      params: { path: { id }, query: { from, to, limit: 1000 } },
    });
    const posts = new Map<string, Post>();
    if (answer.slots.some((s) => s.status === 'taken')) {
      const query = { scheduled_from: from, scheduled_to: to, limit: 100 };
      for await (const p of herald.list('/posts', { params: { query } })) posts.set(p.id, p);
    }
    return { slots: answer.slots, posts, now: Date.now(), monday };
  }, [herald, id, from]);
  const go = (date: Date) => setSearch({ week: isoDate(date) });
  const shown = week.data?.monday ?? monday;
  const days = Array.from({ length: 7 }, (_, i) => addDays(shown, i));

  return (
    <>
      <p>
        <Link to="/queues">← All queues</Link>
      </p>
      <PageTitle>Week of slots</PageTitle>
      <Ready loads={[queue, week]} what="the week's slots">
        <Show loaded={queue} what="the queue">
          {(q) => (
            <p className="meta">
              {q.name} · times in your time zone ({BROWSER_ZONE}); a slot in another zone shows its own time in brackets
              · <Link to={`/queues/${q.id}`}>Edit the queue</Link> ·{' '}
              <Link to={`/queues/${q.id}/suggest`}>Best times</Link>
            </p>
          )}
        </Show>
        <nav className="week-nav" aria-label="Weeks">
          <button type="button" className="secondary" onClick={() => go(addDays(monday, -7))}>
            Previous week
          </button>
          <h2 aria-live="polite">
            {dayHeading(shown)} – {dayHeading(addDays(shown, 6))}
          </h2>
          <button type="button" className="secondary" onClick={() => go(addDays(monday, 7))}>
            Next week
          </button>
        </nav>
        <Show loaded={week} what="slots">
          {(w) => (
            <>
              <p className="meta" aria-busy={week.loading}>
                {w.slots.filter((s) => stateOf(s, w.now) === 'taken').length} taken ·{' '}
                {w.slots.filter((s) => stateOf(s, w.now) === 'free').length} free ·{' '}
                {w.slots.filter((s) => stateOf(s, w.now) === 'past').length} gone by
                {w.slots.length === 0 ? ' · no slots this week (no weekly slots, or every date paused)' : ''}
              </p>
              <div className="week-grid" aria-busy={week.loading}>
                {days.map((day) => {
                  const key = isoDate(day);
                  const slots = w.slots.filter((s) => isoDate(new Date(s.at)) === key);
                  return (
                    <section key={key} className="week-day" aria-label={dayHeading(day)}>
                      <h3>{dayHeading(day)}</h3>
                      {slots.length === 0 ? (
                        <p className="meta">No slots</p>
                      ) : (
                        <ul className="slots">
                          {slots.map((s) => (
                            <SlotCell
                              key={s.at}
                              slot={s}
                              now={w.now}
                              post={s.post_id ? w.posts.get(s.post_id) : undefined}
                            />
                          ))}
                        </ul>
                      )}
                    </section>
                  );
                })}
              </div>
            </>
          )}
        </Show>
      </Ready>
    </>
  );
}
