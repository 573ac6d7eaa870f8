// Benchmark: GET /v1/analytics/summary (the default 30-day window) against a floor server that aggregates the raw
// snapshot rows of the window through `pg` (bench/floor/analytics-server.ts). The window always holds 200
// published targets × 50 snapshots = 10,000 rows; older targets are added around it to reach 500,000 (10,000
// targets) and 1,000,000 snapshot rows. The summary reads the rollup, so its p99 should stay flat as rows grow.
import path from 'node:path';
import { CONNECTIONS, floorEnv } from './create-post.ts';
import { prepareWorkspace, startHerald } from './lib/herald.ts';
import { alternateRounds, type LoadResult, type LoadSpec } from './lib/load.ts';
import { startNodeServer } from './lib/processes.ts';
import { ROWS_PER_TARGET, seedMetrics, WINDOW_TARGETS } from './lib/seed-metrics.ts';
import { fmt, type BenchContext, type Row } from './lib/report.ts';

/** Herald's p99 at most this many times the floor's, at 10,000 rows. */
const MAX_P99_RATIO = 2;
/** "Flat": p99 at the largest size within ±50 % of p99 at 10,000 rows. */
const FLAT = 0.5;

const n = (rows: number) => (rows >= 1_000_000 ? `${rows / 1_000_000}M` : `${rows / 1000}k`);

export async function analyticsSummaryBenchmark(ctx: BenchContext): Promise<Row[]> {
  const seconds = ctx.quick ? 5 : 15;
  const rounds = ctx.quick ? 1 : 2;
  // Snapshot rows in the workspace at each measurement; the first is exactly the window's.
  const sizes = ctx.quick ? [10_000, 100_000] : [10_000, 500_000, 1_000_000];
  const db = await ctx.server.createDatabase();
  try {
    const ws = await prepareWorkspace(db.url);
    const spec = (url: string): LoadSpec => ({
      url: `${url}/v1/analytics/summary`,
      method: 'GET',
      headers: { authorization: `Bearer ${ws.key}` },
      connections: CONNECTIONS,
      seconds,
    });
    const measured: Array<{ rows: number; herald: LoadResult; floor: LoadResult }> = [];
    let targets = 0;
    for (const rows of sizes) {
      const upTo = rows / ROWS_PER_TARGET;
      const started = performance.now();
      await seedMetrics(db.url, ws, targets + 1, upTo);
      ctx.log(
        `analytics: seeded targets ${targets + 1}–${upTo} (${n(rows)} snapshot rows) in ${fmt.s(performance.now() - started)}`,
      );
      targets = upTo;
      const { herald: h, floor: f } = await alternateRounds({
        rounds,
        spec,
        herald: () =>
          startHerald({ databaseUrl: db.url, dataDir: path.join(ctx.scratch, `analytics-${rows}`), secret: ws.secret }),
        floor: () =>
          startNodeServer([path.join(import.meta.dirname, 'floor/analytics-server.ts')], floorEnv(db.url, ws)),
        async checkHerald(url) {
          const probe = (await (await fetch(spec(url).url, { headers: spec(url).headers })).json()) as {
            data: { totals: { targets: number } };
          };
          if (probe.data.totals.targets !== WINDOW_TARGETS)
            throw new Error(`Herald summarised ${probe.data.totals.targets} targets, expected ${WINDOW_TARGETS}`);
        },
      });
      ctx.log(
        `analytics at ${n(rows)} rows: Herald ${fmt.rps(h.requestsPerSecond)} p99 ${fmt.ms(h.p99Ms)}; floor ${fmt.rps(f.requestsPerSecond)} p99 ${fmt.ms(f.p99Ms)}`,
      );
      measured.push({ rows, herald: h, floor: f });
    }
    const [small] = measured;
    const rowsOut: Row[] = measured.map(({ rows, herald, floor }) => ({
      benchmark: `Analytics summary, 30-day window of ${WINDOW_TARGETS} targets (${n(rows)} snapshot rows), ${CONNECTIONS} conn: p99 (best of ${rounds})`,
      herald: `p99 ${fmt.ms(herald.p99Ms)}, ${fmt.rps(herald.requestsPerSecond)}`,
      floor: `p99 ${fmt.ms(floor.p99Ms)}, ${fmt.rps(floor.requestsPerSecond)}`,
      // Floor p99 ÷ Herald p99: higher is better, 0.5 is the target's edge (Herald at 2 × the floor).
      ratio: floor.p99Ms / herald.p99Ms,
      target: rows === small!.rows ? `p99 ≤ ${MAX_P99_RATIO} × floor` : '— (informational)',
      pass: rows === small!.rows ? herald.p99Ms <= MAX_P99_RATIO * floor.p99Ms : null,
      database: ctx.server.label,
    }));
    for (const large of measured.slice(1)) {
      const growth = large.herald.p99Ms / small!.herald.p99Ms;
      rowsOut.push({
        benchmark: `Analytics summary: p99 from ${n(small!.rows)} to ${n(large.rows)} snapshot rows`,
        herald: `${fmt.ms(small!.herald.p99Ms)} → ${fmt.ms(large.herald.p99Ms)} (×${growth.toFixed(2)})`,
        floor: `${fmt.ms(small!.floor.p99Ms)} → ${fmt.ms(large.floor.p99Ms)} (×${(large.floor.p99Ms / small!.floor.p99Ms).toFixed(2)})`,
        ratio: null,
        target: `flat (×${1 - FLAT}–×${1 + FLAT})`,
        pass: growth >= 1 - FLAT && growth <= 1 + FLAT,
        database: ctx.server.label,
      });
    }
    return rowsOut;
  } finally {
    await db.drop();
  }
}
