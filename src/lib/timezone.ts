// Wall-clock times in IANA time zones, with the JavaScript engine's own zone data (Intl): which instant a local
// time names in a zone, across daylight-saving changes. A local time in a spring-forward gap names no instant; one
// in an autumn overlap names two. Knows nothing of Herald: callers turn the answers into their own errors.

/** A local date and time without a zone: `YYYY-MM-DDTHH:mm[:ss[.fff]]`. */
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;
/** The zone part of an ISO 8601 time: `Z` or `±HH:MM` at the end. */
const ZONED = /(?:[zZ]|[+-]\d{2}:?\d{2})$/;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** True when the ISO 8601 time ends with `Z` or an offset. */
export function hasZone(value: string): boolean {
  return ZONED.test(value.trim());
}

/**
 * The canonical name of an IANA zone (`america/new_york` → `America/New_York`), or null when it is unknown. A bare
 * offset (`+05:00`), which the engine also takes, is not a zone: it knows no daylight-saving rules.
 */
export function canonicalZone(zone: string): string | null {
  const known = canonical.get(zone);
  if (known !== undefined) return known;
  let name: string | null = null;
  if (zone.trim() !== '' && zone.length <= 64 && !/^\s*[+-]/.test(zone)) {
    try {
      name = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
    } catch {
      name = null;
    }
  }
  // Bounded: the names asked for come from clients; a full map starts again.
  if (canonical.size >= 1000) canonical.clear();
  canonical.set(zone, name);
  return name;
}

const canonical = new Map<string, string | null>();

/** The zone's offset from UTC at an instant, read from the engine's zone data (one formatToParts). */
function offsetAt(instant: number, zone: string): number {
  const parts = Object.fromEntries(
    formatter(zone)
      .formatToParts(new Date(instant))
      .map((p) => [p.type, p.value]),
  );
  const wall = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return Math.round((wall - (instant - (((instant % 1000) + 1000) % 1000))) / 60_000);
}

/** The span of one cached offset: a zone's offset changes at most once in it (a change a year or two). */
const SPAN_MS = 3_600_000;
/** Per zone, the offset of each span whose two ends agree (so no change happens inside it). */
const spans = new Map<string, Map<number, number>>();

/**
 * The zone's offset from UTC at an instant, in minutes (New York in winter: -300). Reading the engine's zone data
 * costs some microseconds; a calendar page or a queue preview asks hundreds of times, mostly within a few hours.
 * So the offset of each hour is kept once both its ends give the same answer; an hour holding a change is read
 * instant by instant.
 */
export function offsetMinutes(instant: number, zone: string): number {
  const span = Math.floor(instant / SPAN_MS);
  let cache = spans.get(zone);
  const cached = cache?.get(span);
  if (cached !== undefined) return cached;
  const start = offsetAt(span * SPAN_MS, zone);
  if (offsetAt(span * SPAN_MS + SPAN_MS - 1000, zone) !== start) return offsetAt(instant, zone);
  if (!cache) spans.set(zone, (cache = new Map()));
  // Bounded: about a year of hours per zone, then it starts again.
  if (cache.size >= 10_000) cache.clear();
  cache.set(span, start);
  return start;
}

/** `+05:45`, `-04:00`. */
export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** The local time of an instant in a zone, `YYYY-MM-DDTHH:mm:ss` with its offset (`…T01:30:00-04:00`). */
export function localIso(instant: number, zone: string): string {
  const offset = offsetMinutes(instant, zone);
  const wall = new Date(instant + offset * 60_000).toISOString().slice(0, 19);
  return `${wall}${formatOffset(offset)}`;
}

export type LocalResolution =
  | { kind: 'exact'; instant: Date }
  /** The time falls in a gap (clocks jumped over it): `readings` are the two offsets either side applied to it. */
  | { kind: 'skipped'; readings: [string, string]; gapStart: string; gapEnd: string }
  /** The time occurs twice (clocks went back): both instants, earlier first. */
  | { kind: 'repeated'; readings: [string, string] }
  | { kind: 'invalid' };

/** Reads a local `YYYY-MM-DDTHH:mm[:ss[.fff]]` in `zone` (a valid IANA name). */
export function resolveLocal(value: string, zone: string): LocalResolution {
  const m = LOCAL.exec(value.trim());
  if (!m) return { kind: 'invalid' };
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const check = new Date(wall);
  // Date.UTC rolls 2026-02-30 over into March; a date that does not round-trip does not exist.
  if (
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  )
    return { kind: 'invalid' };
  // Offsets in force a day either side: a zone changes its offset at most once in any such window.
  const before = offsetMinutes(wall - 86_400_000, zone);
  const after = offsetMinutes(wall + 86_400_000, zone);
  const candidates = [...new Set([before, after, offsetMinutes(wall, zone)])]
    .map((offset) => wall - offset * 60_000)
    .filter((instant) => offsetMinutes(instant, zone) * 60_000 === wall - instant)
    .sort((a, b) => a - b);
  const unique = [...new Set(candidates)];
  if (unique.length === 1) return { kind: 'exact', instant: new Date(unique[0]!) };
  if (unique.length >= 2)
    return { kind: 'repeated', readings: [localIso(unique[0]!, zone), localIso(unique.at(-1)!, zone)] };
  // A gap: read with the offset before the change, the time lands after the gap, and the other way round.
  const early = Math.min(wall - after * 60_000, wall - before * 60_000);
  const late = Math.max(wall - after * 60_000, wall - before * 60_000);
  // The change itself, to the minute: the first instant from which the new offset holds.
  let low = early;
  let high = late;
  while (high - low > 60_000) {
    const mid = low + Math.floor((high - low) / 120_000) * 60_000;
    if (offsetMinutes(mid, zone) === after) high = mid;
    else low = mid;
  }
  const wallOf = (instant: number, offset: number) => new Date(instant + offset * 60_000).toISOString().slice(0, 16);
  return {
    kind: 'skipped',
    readings: [localIso(early, zone), localIso(late, zone)],
    gapStart: wallOf(high, before),
    gapEnd: wallOf(high, after),
  };
}
