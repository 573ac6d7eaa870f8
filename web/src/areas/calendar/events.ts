// The calendar's data: every event of a window (all pages of GET /v1/calendar/events) and the reschedule call.
import type { components, Herald } from '@herald/client';

export type CalendarEvent = components['schemas']['CalendarEvent'];
export type EventStatus = CalendarEvent['status'];
export type EventType = CalendarEvent['type'];
export type PlatformId = CalendarEvent['platforms'][number];

export const STATUSES: EventStatus[] = [
  'draft',
  'pending_approval',
  'scheduled',
  'publishing',
  'published',
  'partially_published',
  'failed',
  'cancelled',
  'planned',
];
export const TYPES: EventType[] = ['post', 'automation_run'];
export interface Filters {
  brand: string;
  platform: PlatformId | '';
  status: EventStatus | '';
  type: EventType | '';
}

export const NO_FILTERS: Filters = { brand: '', platform: '', status: '', type: '' };

/** The largest page the endpoint gives; a window rarely needs a second one. */
const PAGE = 500;
/** A ceiling on pages per window, so a runaway every-minute automation cannot keep the page loading forever. */
const MAX_PAGES = 10;

export interface Window {
  events: CalendarEvent[];
  /** True when MAX_PAGES were read and the server still had more. */
  truncated: boolean;
}

export async function loadWindow(
  herald: Herald,
  window: { from: string; to: string; tz: string },
  filters: Filters,
): Promise<Window> {
  const events: CalendarEvent[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await herald.GET('/calendar/events', {
      params: {
        query: {
          ...window,
          limit: PAGE,
          ...(filters.brand ? { brand_id: filters.brand } : {}),
          ...(filters.platform ? { platform: [filters.platform] } : {}),
          ...(filters.status ? { status: [filters.status] } : {}),
          ...(filters.type ? { type: [filters.type] } : {}),
          ...(cursor ? { cursor } : {}),
        },
      },
    });
    events.push(...answer.items);
    if (!answer.next_cursor) return { events, truncated: false };
    cursor = answer.next_cursor;
  }
  return { events, truncated: true };
}

export function reschedule(herald: Herald, id: string, startsAt: string): Promise<CalendarEvent> {
  return herald.PATCH('/calendar/events/{id}', { params: { path: { id } }, body: { starts_at: startsAt } });
}

/** Events grouped on the server's `date` bucket. */
export function byDate(events: CalendarEvent[]): Map<string, CalendarEvent[]> {
  const days = new Map<string, CalendarEvent[]>();
  for (const event of events) {
    const list = days.get(event.date) ?? [];
    list.push(event);
    days.set(event.date, list);
  }
  return days;
}

/** Posts are moved; automation runs are changed on their automation, so only editable posts may be dragged. */
export function movable(event: CalendarEvent): boolean {
  return event.editable && event.type === 'post';
}
