// Benchmark: GET /v1/calendar/events for a 31-day window (first page of 100, bucketed in Europe/Paris) with
// 10,000 and then 1,000,000 posts in the workspace (seeded by SQL: bench/lib/seed.ts), against the floor server
// running the same posts query through `pg` (bench/floor/calendar-server.ts). The window sits where the seeded
// scheduled posts are (three years ahead), so it is full at both sizes; posts_calendar_idx should keep p99 flat.
import { listAtSizes, sizeLabel } from './lib/list-scale.ts';
import { seedPosts } from './lib/seed.ts';
import type { BenchContext, Row } from './lib/report.ts';

/** "Flat": p99 at the large size at most this many times p99 at the small one. */
const FLAT = 1.5;
const PAGE = 100;
const DAY_MS = 86_400_000;

export async function calendarEventsBenchmark(ctx: BenchContext): Promise<Row[]> {
  // Seeded scheduled posts start three years after seeding, one second apart: the window opens a day before.
  const start = new Date();
  start.setUTCFullYear(start.getUTCFullYear() + 3);
  const from = new Date(start.getTime() - DAY_MS);
  const to = new Date(from.getTime() + 31 * DAY_MS);
  return listAtSizes(ctx, {
    name: `Calendar events, 31-day window, page of ${PAGE}`,
    logName: 'calendar',
    unit: 'posts',
    describe: (size) => `${sizeLabel(size)} posts`,
    path: `/v1/calendar/events?from=${from.toISOString()}&to=${to.toISOString()}&tz=Europe/Paris&limit=${PAGE}`,
    floor: 'floor/calendar-server.ts',
    dataDir: 'calendar',
    sizes: ctx.quick ? [10_000, 100_000] : [10_000, 1_000_000],
    seed: seedPosts,
    check: ({ items, has_more }) =>
      items.length !== PAGE || !has_more
        ? `Herald listed ${items.length} events, expected a full page of ${PAGE}`
        : undefined,
    flat: { target: `flat (≤ ×${FLAT})`, pass: (g) => g <= FLAT },
  });
}
