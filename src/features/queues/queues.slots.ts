// The arithmetic of a queue's time slots, pure: the instants a queue's weekly wall-clock slots name in a window,
// each read in its own IANA zone across daylight-saving changes, with paused dates skipped (docs/queues.md "Slots").
import { offsetMinutes, resolveLocal } from '../../lib/timezone.ts';

/** A weekly slot: `day_of_week` 0 (Sunday) … 6 (Saturday), `time` `HH:mm` on the wall clock of `timezone`. */
export interface WeeklySlot {
  day_of_week: number;
  time: string;
  timezone: string;
}

export interface SlotRules {
  slots: readonly WeeklySlot[];
  /** `YYYY-MM-DD` dates on which no slot is offered; a slot's date is its local date in its own zone. */
  pauses: readonly string[];
}

/** One instant a weekly slot names. */
export interface SlotOccurrence {
  at: Date;
  slot: WeeklySlot;
}

const DAY_MS = 86_400_000;

/**
 * The instant of a local date and time in a zone. A time that occurs twice (clocks went back) is its first
 * occurrence; a time the clocks jumped over is read with the offset in force before the jump, so it lands as far
 * after the gap as it was into it (02:30 on a spring-forward night in New York is 03:30 EDT), as Temporal's
 * `compatible` disambiguation does.
 */
export function localInstant(date: string, time: string, zone: string): number {
  const wall = Date.parse(`${date}T${time}:00Z`);
  const before = offsetMinutes(wall - DAY_MS, zone);
  const after = offsetMinutes(wall + DAY_MS, zone);
  // Most days the zone's offset does not change within a day either side: one reading, no search.
  if (before === after) return wall - before * 60_000;
  const resolved = resolveLocal(`${date}T${time}`, zone);
  if (resolved.kind === 'exact') return resolved.instant.getTime();
  if (resolved.kind === 'repeated') return Date.parse(resolved.readings[0]);
  if (resolved.kind === 'skipped') return wall - before * 60_000;
  return Number.NaN;
}

/** Minutes after midnight of an `HH:mm` time. */
function minutesOf(time: string): number {
  return (
    (time.charCodeAt(0) - 48) * 600 +
    (time.charCodeAt(1) - 48) * 60 +
    (time.charCodeAt(3) - 48) * 10 +
    time.charCodeAt(4) -
    48
  );
}

/** The local calendar date (`YYYY-MM-DD`) of an instant in a zone. */
function localDate(instant: number, zone: string): string {
  return new Date(instant + offsetMinutes(instant, zone) * 60_000).toISOString().slice(0, 10);
}

/**
 * Every occurrence of the slots in [from, to), earliest first, at most `limit`. Two slots naming the same instant
 * (the same time written in two zones) are one occurrence, the first slot listed.
 */
export function occurrences(
  rules: SlotRules,
  from: Date,
  to: Date,
  limit = Number.POSITIVE_INFINITY,
): SlotOccurrence[] {
  const start = from.getTime();
  const end = to.getTime();
  if (!(end > start) || rules.slots.length === 0) return [];
  const paused = new Set(rules.pauses);
  const byZone = Map.groupBy(rules.slots, (s) => s.timezone);
  const found: SlotOccurrence[] = [];
  for (const [zone, slots] of byZone) {
    const offsets = new Map<number, number>();
    const offsetAt = (instant: number) => {
      let offset = offsets.get(instant);
      if (offset === undefined) offsets.set(instant, (offset = offsetMinutes(instant, zone)));
      return offset;
    };
    const days = new Set(slots.map((s) => s.day_of_week));
    // Local dates from the day before `from` to the day after `to`: a zone is at most 14 hours from UTC.
    const first = Date.parse(`${localDate(start, zone)}T00:00:00Z`) - DAY_MS;
    const last = Date.parse(`${localDate(end, zone)}T00:00:00Z`) + DAY_MS;
    for (let day = first; day <= last; day += DAY_MS) {
      const weekday = new Date(day).getUTCDay();
      if (!days.has(weekday)) continue;
      const date = new Date(day).toISOString().slice(0, 10);
      if (paused.size > 0 && paused.has(date)) continue;
      // One offset for the whole local day when the zone keeps it from the day before to the day after (nearly
      // always): two look-ups per day, not per slot; near a change, each slot is read on its own.
      const before = offsetAt(day - DAY_MS);
      const steady = before === offsetAt(day + 2 * DAY_MS);
      for (const slot of slots) {
        if (slot.day_of_week !== weekday) continue;
        const at = steady ? day + (minutesOf(slot.time) - before) * 60_000 : localInstant(date, slot.time, zone);
        if (at >= start && at < end) found.push({ at: new Date(at), slot });
      }
    }
  }
  found.sort((a, b) => a.at.getTime() - b.at.getTime());
  const unique: SlotOccurrence[] = [];
  for (const occurrence of found) {
    if (unique.at(-1)?.at.getTime() === occurrence.at.getTime()) continue;
    unique.push(occurrence);
    if (unique.length >= limit) break;
  }
  return unique;
}

/** True when an instant is one of the occurrences of the rules (a slot of the queue as it is now). */
export function isOccurrence(rules: SlotRules, at: Date): boolean {
  return occurrences(rules, at, new Date(at.getTime() + 1)).length === 1;
}

/**
 * Windows to scan for a free slot from `start`: short first (a queue with free slots soon answers from one small
 * window), then doubling up to four weeks, until `horizon`.
 */
export function* scanWindows(start: Date, horizon: Date): Generator<[Date, Date]> {
  let from = start.getTime();
  let width = 2 * DAY_MS;
  while (from < horizon.getTime()) {
    const to = Math.min(from + width, horizon.getTime());
    yield [new Date(from), new Date(to)];
    from = to;
    width = Math.min(width * 2, 28 * DAY_MS);
  }
}
