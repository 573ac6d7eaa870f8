// Benchmark 2: GET /v1/posts?status=scheduled&limit=50 with 10,000 and then 1,000,000 posts in the workspace
// (seeded by SQL), against the floor server running the same three queries through `pg`. Shows throughput and
// p99 at both sizes: keyset pagination on (workspace, status, created_at) should make them the same.
import path from 'node:path';
import { floorEnv } from './create-post.ts';
import { prepareWorkspace, startHerald } from './lib/herald.ts';
import { alternateRounds, type LoadResult, type LoadSpec } from './lib/load.ts';
import { startNodeServer } from './lib/processes.ts';
import { seedPosts } from './lib/seed.ts';
import { fmt, type BenchContext, type Row } from './lib/report.ts';

const CONNECTIONS = 64;
const TARGET = 0.6;
/** "Flat": p99 at the large size at most this many times p99 at the small one. */
const FLAT = 1.5;

export async function listPostsBenchmark(ctx: BenchContext): Promise<Row[]> {
  const seconds = ctx.quick ? 5 : 15;
  const rounds = ctx.quick ? 1 : 2;
  const sizes = ctx.quick ? [10_000, 100_000] : [10_000, 1_000_000];
  const db = await ctx.server.createDatabase();
  try {
    const ws = await prepareWorkspace(db.url);
    const spec = (url: string): LoadSpec => ({
      url: `${url}/v1/posts?status=scheduled&limit=50`,
      method: 'GET',
      headers: { authorization: `Bearer ${ws.key}` },
      connections: CONNECTIONS,
      seconds,
    });
    const measured: Array<{ size: number; herald: LoadResult; floor: LoadResult }> = [];
    let seeded = 0;
    for (const size of sizes) {
      const started = performance.now();
      await seedPosts(db.url, ws, seeded + 1, size);
      ctx.log(
        `list posts: seeded posts ${seeded + 1}–${size} (and their targets) in ${fmt.s(performance.now() - started)}`,
      );
      seeded = size;

      const { herald: h, floor: f } = await alternateRounds({
        rounds,
        spec,
        herald: () =>
          startHerald({ databaseUrl: db.url, dataDir: path.join(ctx.scratch, `list-${size}`), secret: ws.secret }),
        floor: () => startNodeServer([path.join(import.meta.dirname, 'floor/posts-server.ts')], floorEnv(db.url, ws)),
        async checkHerald(url) {
          const probe = (await (await fetch(spec(url).url, { headers: spec(url).headers })).json()) as {
            data: { items: unknown[] };
          };
          if (probe.data.items.length !== 50)
            throw new Error(`Herald listed ${probe.data.items.length} posts, expected 50`);
        },
      });
      ctx.log(
        `list posts at ${size}: Herald ${fmt.rps(h.requestsPerSecond)} p99 ${fmt.ms(h.p99Ms)}; floor ${fmt.rps(f.requestsPerSecond)} p99 ${fmt.ms(f.p99Ms)}`,
      );
      measured.push({ size, herald: h, floor: f });
    }
    const n = (size: number) => (size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`);
    const rows: Row[] = measured.map(({ size, herald, floor }) => {
      const ratio = herald.requestsPerSecond / floor.requestsPerSecond;
      return {
        benchmark: `List posts (${n(size)} posts), ${CONNECTIONS} conn: throughput, p99 (best of ${rounds})`,
        herald: `${fmt.rps(herald.requestsPerSecond)}, p99 ${fmt.ms(herald.p99Ms)}`,
        floor: `${fmt.rps(floor.requestsPerSecond)}, p99 ${fmt.ms(floor.p99Ms)}`,
        ratio,
        target: `≥ ${TARGET} × floor`,
        pass: ratio >= TARGET,
        database: ctx.server.label,
      };
    });
    const [small, large] = measured;
    const growth = large!.herald.p99Ms / small!.herald.p99Ms;
    rows.push({
      benchmark: `List posts: p99 from ${n(small!.size)} to ${n(large!.size)} posts`,
      herald: `${fmt.ms(small!.herald.p99Ms)} → ${fmt.ms(large!.herald.p99Ms)} (×${growth.toFixed(2)})`,
      floor: `${fmt.ms(small!.floor.p99Ms)} → ${fmt.ms(large!.floor.p99Ms)} (×${(large!.floor.p99Ms / small!.floor.p99Ms).toFixed(2)})`,
      ratio: null,
      target: `flat (≤ ×${FLAT})`,
      pass: growth <= FLAT,
      database: ctx.server.label,
    });
    return rows;
  } finally {
    await db.drop();
  }
}
