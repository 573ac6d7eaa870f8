// Calendar events as the API shows them, built from the rows they view (docs/calendar.md "Events"): a post, or one
// run still to come of a schedule automation, expanded from its RRULE in its own zone by the automations feature's
// schedule.ts. Also the event id's two forms, which decode back to what they show: a post id, or
// `<automation id>@<slot as YYYYMMDDTHHMMSSZ>`.
import { occurrencesBetween, ScheduleError } from '../automations/schedule.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import type { CalendarAutomationRow, CalendarPostRow } from './calendar.repo.ts';
import type { CalendarEventStatus, CalendarEventType } from './calendar.schemas.ts';
import { bucketOf } from './calendar.window.ts';

export interface CalendarEventView {
  id: string;
  object: 'calendar_event';
  type: CalendarEventType;
  title: string;
  starts_at: string;
  date: string;
  local_start: string;
  status: CalendarEventStatus;
  platforms: PlatformName[];
  brand_id: string;
  post_id: string | null;
  automation_id: string | null;
  /** A recycled copy's family: the post it recycles (docs/queues.md "Recycling"). */
  recycled_from: string | null;
  /** The queue of a queued post (docs/queues.md). */
  queue_id: string | null;
  editable: boolean;
}

/** An event before it is bucketed: what the ICS feed and the API both start from. */
export interface CalendarItem {
  type: CalendarEventType;
  id: string;
  at: Date;
  title: string;
  status: CalendarEventStatus;
  platforms: PlatformName[];
  brandId: string;
  postId: string | null;
  automationId: string | null;
  /** A recycled copy: the family's original post. */
  recycledFrom?: string | null;
  queueId?: string | null;
  /** When its source last changed (an ICS DTSTAMP). */
  modified: Date;
  /** The post's text (empty for an automation run), for an ICS description. */
  content: string;
}

const TITLE_MAX = 80;
/** The statuses in which PATCH and DELETE can still change a post (the posts service's own rule). */
const EDITABLE = new Set<CalendarEventStatus>(['draft', 'scheduled', 'pending_approval']);
/**
 * Runs of one automation listed per request at most: an every-minute rule would otherwise fill a 92-day window
 * with 132,480 runs. The page's cursor continues past them.
 */
const RUNS_PER_AUTOMATION = 1000;

/** The first line with text, cut to TITLE_MAX characters (code points, so no emoji is split). */
export function titleOf(content: string): string {
  const line = FIRST_LINE.exec(content)?.[1]?.trim() ?? '';
  // Fewer UTF-16 units than the limit means fewer code points too: most titles need no counting.
  if (line.length <= TITLE_MAX) return line;
  const chars = [...line];
  return chars.length <= TITLE_MAX ? line : `${chars.slice(0, TITLE_MAX - 1).join('')}…`;
}

/** The first line holding something other than white space. */
const FIRST_LINE = /^(?:[^\S\n]*\n)*([^\n]*)/;

export function postItem(row: CalendarPostRow): CalendarItem {
  return {
    type: 'post',
    id: row.id,
    at: row.starts_at,
    title: titleOf(row.content),
    status: row.status,
    platforms: row.platforms,
    brandId: row.brand_id,
    postId: row.id,
    automationId: null,
    recycledFrom: row.recycled_from,
    queueId: row.queue_id,
    modified: row.updated_at,
    content: row.content,
  };
}

/** `20261201T090000Z`: the slot in an automation run's event id (no `:` so the id sits in a path unencoded). */
function slotText(at: Date): string {
  return at
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

export type EventRef = { kind: 'post'; postId: string } | { kind: 'automation_run'; automationId: string; slot: Date };

/** What an event id names; null when it is neither form. */
export function decodeEventId(id: string): EventRef | null {
  const at = id.lastIndexOf('@');
  if (at < 0) return /^post_[0-9a-z]+$/.test(id) ? { kind: 'post', postId: id } : null;
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(id.slice(at + 1));
  const automationId = id.slice(0, at);
  if (!m || !/^auto_[0-9a-z]+$/.test(automationId)) return null;
  const slot = new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
  return Number.isNaN(slot.getTime()) ? null : { kind: 'automation_run', automationId, slot };
}

/** The automation's runs in `[from, to)`, as calendar items; a rule that no longer parses shows none. */
export function automationItems(row: CalendarAutomationRow, from: Date, to: Date): CalendarItem[] {
  if (!row.source.rrule || !row.source.timezone || from.getTime() >= to.getTime()) return [];
  let slots: Date[];
  try {
    slots = occurrencesBetween(
      { rrule: row.source.rrule, timezone: row.source.timezone },
      from,
      to,
      RUNS_PER_AUTOMATION,
    );
  } catch (error) {
    if (error instanceof ScheduleError) return [];
    throw error;
  }
  return slots
    .filter((at) => at.getTime() < to.getTime())
    .map((at) => ({
      type: 'automation_run' as const,
      id: `${row.id}@${slotText(at)}`,
      at,
      title: row.name,
      status: 'planned' as const,
      platforms: row.platforms,
      brandId: row.brand_id,
      postId: null,
      automationId: row.id,
      modified: row.updated_at,
      content: '',
    }));
}

export function renderEvent(item: CalendarItem, tz: string): CalendarEventView {
  return {
    id: item.id,
    object: 'calendar_event',
    type: item.type,
    title: item.title,
    starts_at: item.at.toISOString(),
    ...bucketOf(item.at, tz),
    status: item.status,
    platforms: item.platforms,
    brand_id: item.brandId,
    post_id: item.postId,
    automation_id: item.automationId,
    recycled_from: item.recycledFrom ?? null,
    queue_id: item.queueId ?? null,
    editable: item.type === 'post' && EDITABLE.has(item.status),
  };
}

/**
 * Posts (in the database's order) and automation runs merged by time; at the same instant posts come first, and
 * runs among themselves by id. The cursor keeps that order (calendar.service.ts).
 */
export function mergeItems(posts: CalendarItem[], runs: CalendarItem[]): CalendarItem[] {
  const sortedRuns = runs.toSorted(
    (a, b) => a.at.getTime() - b.at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const out: CalendarItem[] = [];
  let i = 0;
  let j = 0;
  while (i < posts.length || j < sortedRuns.length) {
    const post = posts[i];
    const run = sortedRuns[j];
    if (run === undefined || (post !== undefined && post.at.getTime() <= run.at.getTime())) {
      out.push(post!);
      i++;
    } else {
      out.push(run);
      j++;
    }
  }
  return out;
}
