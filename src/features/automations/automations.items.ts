// The items a run works on (docs/automations.md "Runs"): a feed's items not seen before, at most
// `max_items_per_run`, oldest first (on the first poll without `backfill`, none: the feed as it is now is only
// marked seen); an event's post; nothing for a scheduled run. Shared by the run and by the preview.
import type { Queryable } from '../../db/pool.ts';
import { readFeed, type FeedCaps, type SourceItem } from './automations.feed.ts';
import * as repo from './automations.repo.ts';
import type { AutomationRow } from './automations.repo.ts';

export const DEFAULT_MAX_ITEMS = 5;

export interface RunItems {
  /** Items read (the whole feed, or the event). */
  seen: number;
  /** Items to post, oldest first. */
  items: SourceItem[];
  /** Keys to record as seen with the run: the posted items, or the whole feed on a first poll without backfill. */
  markKeys: string[];
}

/** The post an event is about, as an item: its text, its first published URL. */
export async function eventItem(db: Queryable, workspaceId: string, eventId: string): Promise<SourceItem | undefined> {
  const { rows } = await db.query<{ data: Record<string, unknown> }>(
    'SELECT data FROM events WHERE workspace_id = $1 AND id = $2',
    [workspaceId, eventId],
  );
  const post = rows[0]?.data as
    { id?: string; content?: string; targets?: { url?: string | null }[]; created_via?: string } | undefined;
  if (!post?.content) return undefined;
  const url = post.targets?.find((t) => t.url)?.url ?? null;
  return {
    key: `event:${eventId}`,
    title: null,
    url,
    summary: post.content.slice(0, 500),
    text: post.content,
    author: null,
    image: null,
    published: null,
  };
}

/** The feed's new items for one run; `db` reads the seen-items table (the run records them in its transaction). */
export async function feedItems(db: Queryable, caps: FeedCaps, automation: AutomationRow): Promise<RunItems> {
  const all = await readFeed(automation.source.feed_url!, caps);
  const keys = all.map((i) => i.key);
  const firstPoll = automation.cursor === 0 && automation.options.backfill !== true;
  if (firstPoll) return { seen: all.length, items: [], markKeys: keys };
  const seen = await repo.seenKeys(db, automation.workspace_id, automation.id, keys);
  const fresh = all.filter((i, at) => !seen.has(i.key) && keys.indexOf(i.key) === at);
  const items = fresh.slice(0, automation.options.max_items_per_run ?? DEFAULT_MAX_ITEMS);
  return { seen: all.length, items, markKeys: items.map((i) => i.key) };
}
