// Routes of the calendar API (docs/calendar.md): the events of a window (`calendar:read`), moving and removing
// them (`calendar:write`), and the ICS feeds' management (`calendar:read`: a feed only reads the calendar). The
// feed URL itself is outside /v1: calendar.feed.routes.ts.
import type { FastifyInstance } from 'fastify';
import type { Pool } from '../../db/pool.ts';
import { serviceContext, type RouteAccess } from '../../http/context.ts';
import { Envelope } from '../../app/envelope.ts';
import { mutation } from '../../http/mutation.ts';
import { listQuery } from '../../http/query.ts';
import { typed } from '../../http/type-provider.ts';
import type { IdempotencyDeps } from '../../app/idempotency.ts';
import { ActionBody } from '../posts/posts.schemas.ts';
import {
  CalendarEventParams,
  CalendarEventsQuery,
  CALENDAR_FEEDS_MAX,
  CreateFeedBody,
  FeedIdParams,
  RescheduleEventBody,
} from './calendar.schemas.ts';
import type { CalendarService } from './calendar.service.ts';
import { ICS_FUTURE_DAYS, ICS_MAX_EVENTS, ICS_PAST_DAYS } from './calendar.feeds.ts';
import {
  CalendarEvent,
  CalendarEventPage,
  CalendarFeed,
  CalendarFeedPage,
  CreatedCalendarFeed,
} from './calendar.view.schemas.ts';
import { CALENDAR_MAX_DAYS } from './calendar.window.ts';

const read: RouteAccess = { scopes: ['calendar:read'], workspace: true, mutates: false };
const write: RouteAccess = { scopes: ['calendar:write'], workspace: true, mutates: true };
const feedWrite: RouteAccess = { scopes: ['calendar:read'], workspace: true, mutates: true };

export function registerCalendarRoutes(
  fastify: FastifyInstance,
  deps: IdempotencyDeps & { pool: Pool; calendar: CalendarService },
): void {
  const app = typed(fastify);
  const { calendar, pool } = deps;
  const tags = ['Calendar'];

  app.get(
    '/calendar/events',
    {
      config: { access: read },
      schema: {
        operationId: 'listCalendarEvents',
        tags,
        summary: 'List the calendar events of a window',
        description: `Posts (at their schedule, else when they went out) and the runs schedule automations will make, in the window \`[from, to)\` (required, at most ${CALENDAR_MAX_DAYS} days, else 422), in time order, paginated by an opaque cursor. Each event carries its bucket: \`date\`, its local date in \`tz\` (an IANA zone, default UTC), computed on the server across daylight-saving changes. Filters: brand, platform, status (default: all but \`cancelled\`), type.`,
        querystring: CalendarEventsQuery,
        response: { 200: Envelope(CalendarEventPage) },
      },
      preValidation: [listQuery('platform'), listQuery('status'), listQuery('type')],
    },
    async (request) => calendar.list(serviceContext(request, pool), request.query),
  );

  app.get(
    '/calendar/events/:id',
    {
      config: { access: read },
      schema: {
        operationId: 'getCalendarEvent',
        tags,
        summary: 'Get a calendar event',
        description:
          "One event: a post's (any status), or a planned run of an active schedule automation. Bucketed in the post's or automation's zone, else UTC.",
        params: CalendarEventParams,
        response: { 200: Envelope(CalendarEvent) },
      },
    },
    async (request) => calendar.get(serviceContext(request, pool), request.params.id),
  );

  app.patch(
    '/calendar/events/:id',
    {
      config: { access: write },
      schema: {
        operationId: 'rescheduleCalendarEvent',
        tags,
        summary: 'Move a post on the calendar',
        description:
          "Reschedules the event's post to `starts_at`, as `PATCH /v1/posts/{id}` with `schedule_at` would: a time in the past is a 422 (`schedule_in_past`), a post publishing, published, failed or cancelled a 409, and when the approval policy reviews the post it is held for approval again. An automation's run is a 409: change the automation. Answers the event (bucketed in the post's zone, else UTC).",
        params: CalendarEventParams,
        body: RescheduleEventBody,
        response: { 200: Envelope(CalendarEvent) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await calendar.reschedule(serviceContext(request, tx), request.params.id, request.body),
    })),
  );

  app.delete(
    '/calendar/events/:id',
    {
      config: { access: { ...write, actionBody: true } },
      schema: {
        operationId: 'cancelCalendarEvent',
        tags,
        summary: 'Remove a post from the calendar',
        description:
          "Cancels the event's post, as `POST /v1/posts/{id}/cancel` does (its publish jobs removed, `post.cancelled` emitted); the post stays, `cancelled`. A post publishing, published or failed: 409. An automation's run: 409 (pause the automation instead).",
        params: CalendarEventParams,
        body: ActionBody,
        response: { 200: Envelope(CalendarEvent) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await calendar.cancel(serviceContext(request, tx), request.params.id),
    })),
  );

  app.get(
    '/calendar/feeds',
    {
      config: { access: read },
      schema: {
        operationId: 'listCalendarFeeds',
        tags,
        summary: 'List the ICS feeds',
        description:
          'The active ICS feeds of the workspace (that the key’s brands cover), newest first. Their URLs are not shown again: revoke a lost one and create another.',
        response: { 200: Envelope(CalendarFeedPage) },
      },
    },
    async (request) => calendar.feeds.list(serviceContext(request, pool)),
  );

  app.get(
    '/calendar/feeds/:id',
    {
      config: { access: read },
      schema: {
        operationId: 'getCalendarFeed',
        tags,
        summary: 'Get an ICS feed',
        description: 'One feed, active or revoked (`revoked_at`); its URL is not shown again.',
        params: FeedIdParams,
        response: { 200: Envelope(CalendarFeed) },
      },
    },
    async (request) => calendar.feeds.get(serviceContext(request, pool), request.params.id),
  );

  app.post(
    '/calendar/feeds',
    {
      config: { access: feedWrite },
      schema: {
        operationId: 'createCalendarFeed',
        tags,
        summary: 'Create an ICS feed',
        description: `A secret URL (\`/calendar/{token}.ics\`, shown only in this answer) that calendar apps subscribe to without a key (RFC 5545). It shows the last ${ICS_PAST_DAYS} and next ${ICS_FUTURE_DAYS} days (at most ${ICS_MAX_EVENTS.toLocaleString('en')} events), filtered as chosen here; a key limited to some brands makes a feed limited to them. At most ${CALENDAR_FEEDS_MAX} active feeds per workspace. Needs only \`calendar:read\`: a feed reads the calendar.`,
        body: CreateFeedBody,
        response: { 201: Envelope(CreatedCalendarFeed) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 201,
      data: await calendar.feeds.create(serviceContext(request, tx), request.body),
    })),
  );

  app.delete(
    '/calendar/feeds/:id',
    {
      config: { access: { ...feedWrite, actionBody: true } },
      schema: {
        operationId: 'revokeCalendarFeed',
        tags,
        summary: 'Revoke an ICS feed',
        description: 'Its URL answers 404 from now on. Answers the feed with `revoked_at`.',
        params: FeedIdParams,
        body: ActionBody,
        response: { 200: Envelope(CalendarFeed) },
      },
    },
    mutation(deps, async (request, tx) => ({
      status: 200,
      data: await calendar.feeds.revoke(serviceContext(request, tx), request.params.id),
    })),
  );
}
