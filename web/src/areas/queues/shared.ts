// What the Queues area's pages share: the schema types they use, weekday names in PostgreSQL's `dow` order
// (0 = Sunday, as the API counts), and the local week the slot grid and its links are anchored on.
import type { components } from '@herald/client';

export type Queue = components['schemas']['Queue'];
export type WeeklySlot = components['schemas']['QueueWeeklySlot'];
export type QueueSlot = components['schemas']['QueueSlot'];
export type Suggestions = components['schemas']['SlotSuggestions'];
export type DryRun = components['schemas']['PostImportDryRun'];
export type PostImport = components['schemas']['PostImport'];
export type RowError = DryRun['rows'][number]['errors'][number];
export type Post = components['schemas']['Post'];
export type RecycleRule = components['schemas']['RecycleRule'];

export const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
/** The order a week is read in on the page: Monday first, as most of Herald's users' calendars do. */
export const WEEK_ORDER = [1, 2, 3, 4, 5, 6, 0];

export const BROWSER_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Every IANA zone the browser knows, with UTC first (some browsers leave it out of the list). */
export function allZones(): string[] {
  const zones = Intl.supportedValuesOf('timeZone');
  return zones.includes('UTC') ? zones : ['UTC', ...zones];
}

/** The zone most of the queue's slots use, else the browser's: what a suggestion defaults to. */
export function mainZone(queue: Queue): string {
  const counts = new Map<string, number>();
  for (const s of queue.slots) counts.set(s.timezone, (counts.get(s.timezone) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? BROWSER_ZONE;
}

/** Local midnight of the Monday of the week holding `date`, in the browser's zone. */
export function mondayOf(date: Date): Date {
  const day = new Date(date.getFullYear(), date.getMonth(), date.getDate());
  const back = (day.getDay() + 6) % 7;
  return new Date(day.getFullYear(), day.getMonth(), day.getDate() - back);
}

export function addDays(date: Date, days: number): Date {
  return new Date(date.getFullYear(), date.getMonth(), date.getDate() + days);
}

/** A local date as `YYYY-MM-DD`, as the week's address in the page's URL. */
export function isoDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

export function parseDate(value: string | null): Date | undefined {
  const match = value ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : null;
  return match ? new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : undefined;
}

export function localTime(value: string): string {
  return new Date(value).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

export function dayHeading(date: Date): string {
  return date.toLocaleDateString(undefined, { weekday: 'long', day: 'numeric', month: 'short' });
}
