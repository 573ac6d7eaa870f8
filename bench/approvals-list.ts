// Benchmark: GET /v1/approvals/items?status=pending&limit=50 with 1,000 and then 100,000 approval items in the
// workspace (a quarter pending; seeded by SQL with generate_series), against a floor server running the same query
// through `pg` (bench/floor/approvals-server.ts). The targets: Herald's p99 flat (±50 %) from 1k to 100k,
// and at most 2 × the floor's at each size.
import path from 'node:path';
import pg from 'pg';
import { CONNECTIONS, floorEnv } from './create-post.ts';
import { prepareWorkspace, startHerald, type Workspace } from './lib/herald.ts';
import { alternateRounds, type LoadResult, type LoadSpec } from './lib/load.ts';
import { startNodeServer } from './lib/processes.ts';
import { fmt, type BenchContext, type Row } from './lib/report.ts';

/** Herald's p99 at most this many times the floor's. */
const MAX_P99_RATIO = 2;
/** "Flat": p99 at 100k within ±50 % of p99 at 1k. */
const FLAT = 0.5;

/** Adds items number `from`…`to`; item n was requested n seconds ago; every fourth is pending. */
async function seedItems(url: string, ws: Workspace, from: number, to: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO approval_items (id, workspace_id, brand_id, kind, subject_type, subject_id, action_type, action_at,
              source_type, platforms, preview, status, on_expire, requested_by, requested_at, decided_at)
       SELECT 'apr_seed' || lpad(g::text, 22, '0'), $1, $2, 'post', 'post', 'post_seed' || g, 'schedule',
              now() + interval '30 days', (ARRAY['api', 'mcp', 'automation', 'repurpose'])[g % 4 + 1], ARRAY['mastodon'],
              jsonb_build_object('content', 'Seeded item ' || g, 'media_ids', '[]'::jsonb,
                'platforms', jsonb_build_array(jsonb_build_object('platform', 'mastodon', 'text', 'Seeded item ' || g))),
              CASE WHEN g % 4 = 0 THEN 'pending' ELSE (ARRAY['approved', 'rejected', 'superseded'])[g % 3 + 1] END,
              'to_draft', $3, now() - g * interval '1 second',
              CASE WHEN g % 4 <> 0 THEN now() - g * interval '1 second' END
         FROM generate_series($4::int, $5::int) AS g`,
      [ws.workspaceId, ws.brandId, ws.userId, from, to],
    );
    await client.query('ANALYZE approval_items');
  } finally {
    await client.end();
  }
}

const n = (size: number) => `${size / 1000}k`;

export async function approvalsListBenchmark(ctx: BenchContext): Promise<Row[]> {
  const seconds = ctx.quick ? 5 : 15;
  const rounds = ctx.quick ? 1 : 2;
  const sizes = [1_000, 100_000];
  const db = await ctx.server.createDatabase();
  try {
    const ws = await prepareWorkspace(db.url);
    const spec = (url: string): LoadSpec => ({
      url: `${url}/v1/approvals/items?status=pending&limit=50`,
      method: 'GET',
      headers: { authorization: `Bearer ${ws.key}` },
      connections: CONNECTIONS,
      seconds,
    });
    const measured: Array<{ size: number; herald: LoadResult; floor: LoadResult }> = [];
    let seeded = 0;
    for (const size of sizes) {
      const started = performance.now();
      await seedItems(db.url, ws, seeded + 1, size);
      ctx.log(`approvals list: seeded items ${seeded + 1}–${size} in ${fmt.s(performance.now() - started)}`);
      seeded = size;
      const { herald: h, floor: f } = await alternateRounds({
        rounds,
        spec,
        herald: () =>
          startHerald({ databaseUrl: db.url, dataDir: path.join(ctx.scratch, `approvals-${size}`), secret: ws.secret }),
        floor: () =>
          startNodeServer([path.join(import.meta.dirname, 'floor/approvals-server.ts')], floorEnv(db.url, ws)),
        async checkHerald(url) {
          const probe = (await (await fetch(spec(url).url, { headers: spec(url).headers })).json()) as {
            data: { items: Array<{ status: string }> };
          };
          if (probe.data.items.length !== 50 || probe.data.items.some((i) => i.status !== 'pending'))
            throw new Error(`Herald listed ${probe.data.items.length} items, expected 50 pending`);
        },
      });
      ctx.log(
        `approvals list at ${n(size)}: Herald ${fmt.rps(h.requestsPerSecond)} p99 ${fmt.ms(h.p99Ms)}; floor ${fmt.rps(f.requestsPerSecond)} p99 ${fmt.ms(f.p99Ms)}`,
      );
      measured.push({ size, herald: h, floor: f });
    }
    const rows: Row[] = measured.map(({ size, herald, floor }) => ({
      benchmark: `Approvals list (status=pending, ${n(size)} items), ${CONNECTIONS} conn: p99 (best of ${rounds})`,
      herald: `p99 ${fmt.ms(herald.p99Ms)}, ${fmt.rps(herald.requestsPerSecond)}`,
      floor: `p99 ${fmt.ms(floor.p99Ms)}, ${fmt.rps(floor.requestsPerSecond)}`,
      // Floor p99 ÷ Herald p99: higher is better; 0.5 is the target's edge (Herald at 2 × the floor).
      ratio: floor.p99Ms / herald.p99Ms,
      target: `p99 ≤ ${MAX_P99_RATIO} × floor`,
      pass: herald.p99Ms <= MAX_P99_RATIO * floor.p99Ms,
      database: ctx.server.label,
    }));
    const [small, large] = measured;
    const growth = large!.herald.p99Ms / small!.herald.p99Ms;
    rows.push({
      benchmark: `Approvals list: p99 from ${n(small!.size)} to ${n(large!.size)} items`,
      herald: `${fmt.ms(small!.herald.p99Ms)} → ${fmt.ms(large!.herald.p99Ms)} (×${growth.toFixed(2)})`,
      floor: `${fmt.ms(small!.floor.p99Ms)} → ${fmt.ms(large!.floor.p99Ms)} (×${(large!.floor.p99Ms / small!.floor.p99Ms).toFixed(2)})`,
      ratio: null,
      target: `flat (×${1 - FLAT}–×${1 + FLAT})`,
      pass: growth >= 1 - FLAT && growth <= 1 + FLAT,
      database: ctx.server.label,
    });
    return rows;
  } finally {
    await db.drop();
  }
}
