// The calendar (docs/calendar.md): a read model over posts and the runs schedule automations will make, never a
// second store. Moving or removing an event goes through the posts service (its rules, its approval gate, its
// events); an automation's run is changed by changing the automation. ICS feeds: calendar.feeds.ts.
import type { ServiceContext } from '../../app/context.ts';
import { decodeCursor, encodeCursor } from '../../app/cursor.ts';
import { AppError, notFound } from '../../app/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { localIso, resolveLocal } from '../../lib/timezone.ts';
import { brandScope } from '../analytics/scope.ts';
import type { PostsService } from '../posts/posts.service.ts';
import * as repo from './calendar.repo.ts';
import { automationItems, decodeEventId, postItem, renderEvent, type CalendarEventView } from './calendar.events.ts';
import { collectItems, type ItemFilters, type ItemPosition } from './calendar.items.ts';
import { createFeedsService } from './calendar.feeds.ts';
import {
  CALENDAR_EVENT_TYPES,
  CALENDAR_PAGE_DEFAULT,
  type CalendarEventsQuery,
  type RescheduleEventBody,
} from './calendar.schemas.ts';
import { calendarWindow } from './calendar.window.ts';

export interface CalendarDeps {
  clock: Clock;
  posts: Pick<PostsService, 'update' | 'cancel'>;
  /** Herald's public origin, for the feeds' URLs. */
  publicUrl: string;
}

/** Post states in which an event can no longer move or be removed: they have gone out, or are going. */
const SETTLED: ReadonlySet<string> = new Set(['publishing', 'published', 'partially_published', 'failed', 'cancelled']);

function eventOrNotFound(id: string) {
  const ref = decodeEventId(id);
  if (!ref) throw notFound('calendar event');
  return ref;
}

export function createCalendarService(deps: CalendarDeps) {
  /** A post event the caller may see, or 404; an automation run's event is a 409 once its automation is found. */
  async function editablePost(ctx: ServiceContext, id: string, action: 'moved' | 'removed') {
    const ref = eventOrNotFound(id);
    if (ref.kind === 'automation_run') {
      if (!(await repo.automationExists(ctx.db, ctx.workspaceId, ref.automationId))) throw notFound('calendar event');
      throw new AppError(
        'PUBLIC_API_STATE_CONFLICT',
        `An automation's planned run cannot be ${action} on the calendar: change the automation's schedule (PATCH /v1/automations/${ref.automationId}) or pause it.`,
        { details: [{ path: '/id', rule: 'automation_run_not_editable', message: 'is an automation run' }] },
      );
    }
    const post = await repo.findCalendarPost(ctx.db, ctx.workspaceId, ref.postId);
    if (!post || (ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(post.brand_id)))
      throw notFound('calendar event');
    if (SETTLED.has(post.status))
      throw new AppError('PUBLIC_API_STATE_CONFLICT', `A ${post.status} post cannot be ${action} on the calendar.`, {
        details: [{ path: '/id', rule: 'post_settled', message: `the post is ${post.status}` }],
      });
    return post;
  }

  async function eventOf(ctx: ServiceContext, postId: string): Promise<CalendarEventView> {
    const post = (await repo.findCalendarPost(ctx.db, ctx.workspaceId, postId))!;
    const item = postItem({ ...post, starts_at: post.starts_at ?? post.updated_at });
    return renderEvent(item, post.timezone ?? 'UTC');
  }

  return {
    feeds: createFeedsService({ clock: deps.clock, publicUrl: deps.publicUrl }),

    async list(ctx: ServiceContext, query: CalendarEventsQuery) {
      const window = calendarWindow(query);
      const filters: ItemFilters = {
        from: window.from,
        to: window.to,
        brandIds: brandScope(ctx, query.brand_id),
        statuses: query.status ? [...new Set(query.status)].toSorted() : null,
        types: query.type ? [...new Set(query.type)].toSorted() : CALENDAR_EVENT_TYPES,
        platforms: query.platform ? [...new Set(query.platform)].toSorted() : null,
      };
      const limit = query.limit ?? CALENDAR_PAGE_DEFAULT;
      const binding = { ...filters, tz: window.tz };
      let after: ItemPosition | null = null;
      if (query.cursor) {
        const position = decodeCursor(query.cursor, binding);
        const [type, ...rest] = position.id.split(':');
        if (position.value === null || (type !== 'post' && type !== 'automation_run'))
          throw new AppError('PUBLIC_API_QUERY_INVALID', 'The cursor is not one this API issued.', {
            details: [{ path: '/cursor', message: 'is malformed' }],
          });
        after = { at: new Date(position.value), type, id: rest.join(':') };
      }
      const items = await collectItems(ctx.db, ctx.workspaceId, filters, after, limit + 1, deps.clock.now());
      const page = items.slice(0, limit);
      const last = page.at(-1);
      const hasMore = items.length > limit && last !== undefined;
      return {
        items: page.map((item) => renderEvent(item, window.tz)),
        next_cursor: hasMore
          ? encodeCursor({ value: last.at.toISOString(), id: `${last.type}:${last.id}` }, binding)
          : null,
        has_more: hasMore,
        from: window.from.toISOString(),
        to: window.to.toISOString(),
        tz: window.tz,
      };
    },

    /** One event: a post's, or an automation run still planned (bucketed in the post's or automation's zone). */
    async get(ctx: ServiceContext, id: string): Promise<CalendarEventView> {
      const ref = eventOrNotFound(id);
      if (ref.kind === 'post') {
        const post = await repo.findCalendarPost(ctx.db, ctx.workspaceId, ref.postId);
        if (!post || (ctx.allowedBrandIds && !ctx.allowedBrandIds.includes(post.brand_id)))
          throw notFound('calendar event');
        return eventOf(ctx, post.id);
      }
      const [automation] = await repo.listScheduleAutomations(
        ctx.db,
        ctx.workspaceId,
        ctx.allowedBrandIds,
        ref.automationId,
      );
      const slot = ref.slot.getTime();
      const run = automation
        ? automationItems(automation, new Date(slot), new Date(slot + 1)).find((item) => item.at.getTime() === slot)
        : undefined;
      if (!automation || !run) throw notFound('calendar event');
      return renderEvent(run, automation.source.timezone ?? 'UTC');
    },

    /**
     * Moves a post to `starts_at` through the posts service: its rules (422 in the past), its approval gate (held
     * again when the policy reviews a reschedule) and its events. A post scheduled in a zone keeps its zone.
     */
    async reschedule(ctx: ServiceContext, id: string, body: RescheduleEventBody): Promise<CalendarEventView> {
      const post = await editablePost(ctx, id, 'moved');
      const instant = new Date(body.starts_at);
      let scheduleAt = body.starts_at;
      if (post.timezone) {
        const wall = localIso(instant.getTime(), post.timezone).slice(0, 19);
        const local = resolveLocal(wall, post.timezone);
        // The wall time names this instant only when the zone does not repeat it; otherwise the instant is kept.
        if (local.kind === 'exact' && local.instant.getTime() === instant.getTime()) scheduleAt = wall;
      }
      await deps.posts.update(ctx, post.id, { schedule_at: scheduleAt }).catch((error: unknown) => {
        throw asStartsAt(error);
      });
      return eventOf(ctx, post.id);
    },

    /** Cancels the post (posts service: its jobs removed, its approval request withdrawn, `post.cancelled`). */
    async cancel(ctx: ServiceContext, id: string): Promise<CalendarEventView> {
      const post = await editablePost(ctx, id, 'removed');
      await deps.posts.cancel(ctx, post.id);
      return eventOf(ctx, post.id);
    },
  };
}

export type CalendarService = ReturnType<typeof createCalendarService>;

/** The posts service's refusal of a time, named after this endpoint's field (`starts_at`, not `schedule_at`). */
function asStartsAt(error: unknown): unknown {
  if (!(error instanceof AppError) || !error.details?.some((d) => d.path === '/schedule_at')) return error;
  const rename = (text: string) => text.replace(/\bschedule_at\b/g, 'starts_at');
  const details = error.details.map((d) =>
    d.path === '/schedule_at' ? { ...d, path: '/starts_at', message: rename(d.message) } : d,
  );
  return new AppError(error.code, rename(error.message), { details, headers: error.headers });
}
