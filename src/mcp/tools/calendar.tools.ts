// MCP tools over the calendar service: the same calls, scopes and schemas as /v1/calendar/events. An assistant
// reads a window of the plan (bucketed by day in the user's zone) and moves or removes posts on it.
import type { ServiceContext } from '../../app/context.ts';
import { CalendarEventsQuery, RescheduleEventBody } from '../../features/calendar/calendar.schemas.ts';
import type { CalendarEventView } from '../../features/calendar/calendar.events.ts';
import type { CalendarService } from '../../features/calendar/calendar.service.ts';
import { tool, type ToolDefinition } from './tool.ts';

function ctxOf(service: ServiceContext | null): ServiceContext {
  if (!service) throw new Error('workspace tool without a workspace context');
  return service;
}

function eventLine(e: CalendarEventView): string {
  return `${e.local_start} · ${e.type === 'post' ? 'post' : 'automation run'} ${e.id} · ${e.status} · ${e.platforms.join(', ') || 'no platform'} · ${e.title}`;
}

const EVENT_ID = {
  argument: 'calendar_event_id' as const,
  description: 'The calendar event id, as list_calendar_events returns it (a post id, `post_…`).',
};

export function calendarTools(calendar: CalendarService): ToolDefinition[] {
  return [
    tool({
      name: 'list_calendar_events',
      title: 'List the calendar of a window',
      scope: 'calendar:read',
      workspace: true,
      mutates: false,
      description:
        'Lists what is planned and what went out in a window: posts (at their schedule, else when published) and the runs schedule automations will make. `from` and `to` are dates (`2026-12-01`, midnight in `tz`) or date-times; at most 92 days. `tz` (IANA, default UTC) sets each event’s `date`, the day it falls on locally. Filters: brand_id, platform, status (default: all but cancelled), type (post | automation_run). Paginated: pass `next_cursor` as `cursor`.',
      input: { schema: CalendarEventsQuery, part: 'querystring' },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ service }, input) => calendar.list(ctxOf(service), input.body),
      summarize: (r) => {
        const items = r.items as CalendarEventView[];
        const lines = items.slice(0, 50).map(eventLine);
        const more = r.has_more ? '\nMore events follow: call again with `cursor` set to next_cursor.' : '';
        return `${items.length} event${items.length === 1 ? '' : 's'} (${String(r.tz)}):\n${lines.join('\n')}${more}`;
      },
    }),
    tool({
      name: 'reschedule_calendar_event',
      title: 'Move a post on the calendar',
      scope: 'calendar:write',
      workspace: true,
      mutates: true,
      id: EVENT_ID,
      description:
        'Moves the event’s post to `starts_at` (with `Z` or an offset). Refused for a time in the past (422), a post already publishing or published (409), and an automation run (409: change the automation). When the approval policy reviews the post, it is held for approval again.',
      input: { schema: RescheduleEventBody, part: 'body' },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      run: async ({ service }, input) => ({ ...(await calendar.reschedule(ctxOf(service), input.id!, input.body)) }),
      summarize: (r) => `Moved: ${eventLine(r as unknown as CalendarEventView)}`,
    }),
    tool({
      name: 'cancel_calendar_event',
      title: 'Remove a post from the calendar',
      scope: 'calendar:write',
      workspace: true,
      mutates: true,
      id: EVENT_ID,
      description:
        'Cancels the event’s post (it stays, cancelled; nothing is published). Refused (409) for a post publishing, published or failed, and for an automation run (pause the automation instead).',
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      run: async ({ service }, input) => ({ ...(await calendar.cancel(ctxOf(service), input.id!)) }),
      summarize: (r) => `Cancelled: ${eventLine(r as unknown as CalendarEventView)}`,
    }),
  ];
}
