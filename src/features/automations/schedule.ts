// Schedule expansion for `source.type: schedule` automations (docs/automations.md "The automation"). The recurrence is
// an RFC 5545 RRULE expanded by `rrule-temporal` in the automation's IANA time zone, so 09:00 Europe/Paris stays
// 09:00 local across DST whatever the host's own zone is. Stored rules always carry a DTSTART (the service adds
// one at create time when the caller gave only the RRULE line); a rule without one is anchored at a fixed local
// midnight so expansion stays deterministic.
import { createRequire } from 'node:module';
import type { RRuleTemporal } from 'rrule-temporal';

// Loaded on the first schedule expanded, not at start (it bundles a Temporal polyfill: about 4 MiB).
let rruleClass: typeof RRuleTemporal | undefined;
const RRule = () =>
  (rruleClass ??= (createRequire(import.meta.url)('rrule-temporal') as { RRuleTemporal: typeof RRuleTemporal })
    .RRuleTemporal);

export interface ScheduleSource {
  rrule: string;
  timezone: string;
}

const DEFAULT_ANCHOR = '20260101T000000';
// Recurrences finer than a minute would run automations faster than the scheduler ticks.
const TOO_FINE = /FREQ=SECONDLY/i;

export class ScheduleError extends Error {}

/** `YYYYMMDDTHHMMSS` local wall time of `date` in `timezone` (the form a TZID-qualified DTSTART takes). */
export function localStamp(date: Date, timezone: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(date);
  const get = (type: string): string => parts.find((p) => p.type === type)?.value ?? '00';
  return `${get('year')}${get('month')}${get('day')}T${get('hour')}${get('minute')}00`;
}

export function isValidTimezone(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** Splits an rrule text into its DTSTART value (if any) and its RRULE body (without the `RRULE:` prefix). */
export function splitRule(rrule: string): { dtstart: string | null; tzid: string | null; rule: string } {
  let dtstart: string | null = null;
  let tzid: string | null = null;
  let rule = '';
  for (const raw of rrule.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '') continue;
    const upper = line.toUpperCase();
    if (upper.startsWith('DTSTART')) {
      const match = /^DTSTART(?:;TZID=([^:]+))?:(\d{8}T\d{6})$/i.exec(line);
      if (!match) throw new ScheduleError('DTSTART must look like DTSTART;TZID=<zone>:YYYYMMDDTHHMMSS');
      tzid = match[1] ?? null;
      dtstart = match[2]!;
    } else if (upper.startsWith('RRULE:')) {
      rule = line.slice('RRULE:'.length);
    } else if (/^FREQ=|;FREQ=/i.test(line) && rule === '') {
      rule = line;
    } else {
      throw new ScheduleError(`unsupported line in rrule: ${line.slice(0, 60)}`);
    }
  }
  if (rule === '' || !/(^|;)FREQ=/i.test(rule)) throw new ScheduleError('rrule needs a FREQ= part');
  return { dtstart, tzid, rule };
}

/** The stored form: `DTSTART;TZID=<timezone>:<local>\nRRULE:<rule>`, anchored at `anchor` when no DTSTART is given. */
export function normaliseRule(source: ScheduleSource, anchor: Date): string {
  if (!isValidTimezone(source.timezone)) throw new ScheduleError(`unknown IANA time zone: ${source.timezone}`);
  const { dtstart, tzid, rule } = splitRule(source.rrule);
  if (TOO_FINE.test(rule)) throw new ScheduleError('FREQ=SECONDLY is not allowed; the finest schedule is MINUTELY');
  if (tzid !== null && tzid !== source.timezone) {
    throw new ScheduleError(`DTSTART TZID ${tzid} differs from timezone ${source.timezone}`);
  }
  const text = `DTSTART;TZID=${source.timezone}:${dtstart ?? localStamp(anchor, source.timezone)}\nRRULE:${rule}`;
  build(text);
  return text;
}

function build(text: string): RRuleTemporal {
  try {
    return new (RRule())({ rruleString: text });
  } catch (err) {
    throw new ScheduleError(`invalid rrule: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function ruleFor(source: ScheduleSource): RRuleTemporal {
  const { dtstart, rule } = splitRule(source.rrule);
  return build(`DTSTART;TZID=${source.timezone}:${dtstart ?? DEFAULT_ANCHOR}\nRRULE:${rule}`);
}

/** Occurrences in [from, to] (both inclusive), at most `limit`, earliest first. */
export function occurrencesBetween(source: ScheduleSource, from: Date, to: Date, limit: number): Date[] {
  if (limit <= 0 || to.getTime() < from.getTime()) return [];
  const rule = ruleFor(source);
  const out: Date[] = [];
  let cursor = rule.next(from, true);
  while (cursor !== null && out.length < limit) {
    const at = new Date(cursor.epochMilliseconds);
    if (at.getTime() > to.getTime()) break;
    out.push(at);
    cursor = rule.next(at, false);
  }
  return out;
}

/** The first occurrence strictly after `after`, or null when the rule has ended (COUNT/UNTIL). */
export function nextOccurrence(source: ScheduleSource, after: Date): Date | null {
  const next = ruleFor(source).next(after, false);
  return next === null ? null : new Date(next.epochMilliseconds);
}
