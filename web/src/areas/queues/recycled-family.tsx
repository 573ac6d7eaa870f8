// A recycled family on the post page: the original and every copy whose `recycled_from` names it. The posts list
// has no filter for it, so the copies are read from the calendar (GET /v1/calendar/events carries
// `recycled_from`), in windows of 92 days (its longest) from the original's time until two days from now: a copy is
// made at most an hour before its time, so none lies beyond.
import { Link } from 'react-router';
import type { components, Herald } from '@herald/client';
import { formatTime, Show, useApp, useLoad } from '../../ui.tsx';
import type { Post } from './shared.ts';

type CalendarEvent = components['schemas']['CalendarEvent'];

const DAY_MS = 86_400_000;
const WINDOW_DAYS = 92;
const EVERY_STATUS: NonNullable<NonNullable<components['schemas']['CalendarEvent']['status']>>[] = [
  'draft',
  'pending_approval',
  'scheduled',
  'publishing',
  'published',
  'partially_published',
  'failed',
  'cancelled',
];

async function familyOf(herald: Herald, post: Post): Promise<{ original: Post; copies: CalendarEvent[] }> {
  const familyId = post.recycled_from ?? post.id;
  const original =
    familyId === post.id ? post : await herald.GET('/posts/{id}', { params: { path: { id: familyId } } });
  const copies: CalendarEvent[] = [];
  const end = Date.now() + 2 * DAY_MS;
  let start = new Date(original.published_at ?? original.schedule_at ?? original.created_at).getTime();
  while (start < end) {
    const to = Math.min(start + WINDOW_DAYS * DAY_MS, end);
    const query = {
      from: new Date(start).toISOString(),
      to: new Date(to).toISOString(),
      brand_id: original.brand_id,
      type: ['post' as const],
      status: EVERY_STATUS,
      limit: 500,
    };
    for await (const event of herald.list('/calendar/events', { params: { query } })) {
      if (event.recycled_from === familyId) copies.push(event);
    }
    start = to;
  }
  return { original, copies };
}

export function RecycledFamily({ post }: { post: Post }) {
  const { herald } = useApp();
  const isFamily = post.recycled_from !== null || post.recycle !== null;
  const family = useLoad(
    () => (isFamily ? familyOf(herald, post) : Promise.resolve(undefined)),
    [herald, post.id, post.recycle?.done, post.recycle?.updated_at, isFamily],
  );
  if (!isFamily) return null;
  return (
    <div className="family">
      <h3>The recycled family</h3>
      <Show loaded={family} what="the family">
        {(f) =>
          f ? (
            <ul className="list" aria-label="Original and copies">
              <li>
                {f.original.id === post.id ? (
                  <strong>This post</strong>
                ) : (
                  <Link to={`/posts/${f.original.id}`}>{f.original.content.slice(0, 60) || f.original.id}</Link>
                )}
                <span className="badge">original</span>
                <span className={`status ${f.original.status}`}>{f.original.status}</span>
                <span className="meta">{formatTime(f.original.published_at)}</span>
              </li>
              {f.copies.map((c) => (
                <li key={c.id}>
                  {c.post_id === post.id ? (
                    <strong>This post</strong>
                  ) : (
                    <Link to={`/posts/${c.post_id}`}>{c.title || c.id}</Link>
                  )}
                  <span className="badge muted">copy</span>
                  <span className={`status ${c.status}`}>{c.status}</span>
                  <span className="meta">{formatTime(c.starts_at)}</span>
                </li>
              ))}
              {f.copies.length === 0 ? <li className="meta">No copy made yet.</li> : null}
            </ul>
          ) : null
        }
      </Show>
    </div>
  );
}
