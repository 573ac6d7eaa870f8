// YouTube's daily quota day: it resets at midnight Pacific time (quota guide), so a quotaExceeded answer is not retried
// before then. Shared by the adapter (retryAfterMs) and the simulator (which day a call is charged to).
const DAY_MS = 24 * 3600_000;
const PACIFIC = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/Los_Angeles',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** Pacific wall-clock time minus UTC at `at` (−8 h or −7 h with daylight saving), in ms. */
function pacificOffsetMs(at: number): number {
  const parts = Object.fromEntries(PACIFIC.formatToParts(at).map((p) => [p.type, Number(p.value)]));
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return wall - Math.floor(at / 1000) * 1000;
}

/** The quota day `at` falls in, as YYYY-MM-DD in Pacific time. */
export function pacificDay(at: number): string {
  return new Date(at + pacificOffsetMs(at)).toISOString().slice(0, 10);
}

/** The next midnight Pacific time after `at` (ms since the epoch), daylight-saving changes included. */
export function nextPacificMidnight(at: number): number {
  const midnightWall = (Math.floor((at + pacificOffsetMs(at)) / DAY_MS) + 1) * DAY_MS;
  // The offset at midnight may differ from the offset now (the day a clock change happens): take the later one.
  return midnightWall - pacificOffsetMs(midnightWall - pacificOffsetMs(at));
}
