// The calendar's items in order, from both sources: posts (one keyset range of posts_calendar_idx) and the runs
// still to come of schedule automations (expanded in memory, a bounded number per automation). Shared by the API's
// pages (calendar.service.ts) and the ICS feeds (calendar.feeds.ts).
import type { Queryable } from '../../db/pool.ts';
import type { PostStatus } from '../posts/posts.repo.ts';
import { POST_STATUSES } from '../posts/posts.view.schemas.ts';
import * as repo from './calendar.repo.ts';
import { automationItems, mergeItems, postItem, type CalendarItem } from './calendar.events.ts';
import type { CalendarEventStatus, CalendarEventType } from './calendar.schemas.ts';

export interface ItemFilters {
  from: Date;
  to: Date;
  brandIds: readonly string[] | null;
  /** Null: every status but `cancelled`. */
  statuses: readonly CalendarEventStatus[] | null;
  types: readonly CalendarEventType[];
  platforms: readonly string[] | null;
}

/** Where the previous page ended: an instant, and the post or automation run last shown at it. */
export interface ItemPosition {
  at: Date;
  type: CalendarEventType;
  id: string;
}

/** True when `item` comes after `after` in the calendar's order (time, then posts before runs, then id). */
function isAfter(item: CalendarItem, after: ItemPosition): boolean {
  const d = item.at.getTime() - after.at.getTime();
  if (d !== 0) return d > 0;
  if (after.type === 'post') return item.type === 'automation_run';
  return item.type === 'automation_run' && item.id > after.id;
}

/**
 * The items of a window in order, at most `limit` (+1 to know whether more follow). Runs are only those still to
 * come (after `now`): a run that happened made posts, which are on the calendar as themselves.
 */
export async function collectItems(
  db: Queryable,
  workspaceId: string,
  filters: ItemFilters,
  after: ItemPosition | null,
  limit: number,
  now: Date,
): Promise<CalendarItem[]> {
  const postStatuses = filters.statuses
    ? filters.statuses.filter((s): s is PostStatus => (POST_STATUSES as readonly string[]).includes(s))
    : null;
  const wantPosts = filters.types.includes('post') && (postStatuses === null || postStatuses.length > 0);
  const wantRuns =
    filters.types.includes('automation_run') && (filters.statuses === null || filters.statuses.includes('planned'));
  const posts = wantPosts
    ? (
        await repo.listCalendarPosts(
          db,
          workspaceId,
          { ...filters, statuses: postStatuses },
          after ? { at: after.at, id: after.type === 'post' ? after.id : null } : null,
          limit,
        )
      ).map(postItem)
    : [];
  let runs: CalendarItem[] = [];
  if (wantRuns) {
    const start = Math.max(filters.from.getTime(), now.getTime(), after?.at.getTime() ?? 0);
    const automations = await repo.listScheduleAutomations(db, workspaceId, filters.brandIds);
    runs = automations
      .filter((a) => !filters.platforms || a.platforms.some((p) => filters.platforms!.includes(p)))
      .flatMap((a) => automationItems(a, new Date(start), filters.to))
      .filter((item) => !after || isAfter(item, after));
  }
  return mergeItems(posts, runs).slice(0, limit);
}
