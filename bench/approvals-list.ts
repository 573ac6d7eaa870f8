// Benchmark: GET /v1/approvals/items?status=pending&limit=50 with 1,000 and then 100,000 approval items in the
// workspace (a quarter pending; seeded by SQL with generate_series), against a floor server running the same query
// through `pg` (bench/floor/approvals-server.ts). The targets: Herald's p99 flat (±50 %) from 1k to 100k,
// and at most 2 × the floor's at each size.
import pg from 'pg';
import type { Workspace } from './lib/herald.ts';
import { listAtSizes, sizeLabel } from './lib/list-scale.ts';
import type { BenchContext, Row } from './lib/report.ts';

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

export async function approvalsListBenchmark(ctx: BenchContext): Promise<Row[]> {
  return listAtSizes(ctx, {
    name: 'Approvals list',
    logName: 'approvals list',
    unit: 'items',
    describe: (size) => `status=pending, ${sizeLabel(size)} items`,
    path: '/v1/approvals/items?status=pending&limit=50',
    floor: 'floor/approvals-server.ts',
    dataDir: 'approvals',
    sizes: [1_000, 100_000],
    seed: seedItems,
    check: ({ items }) =>
      items.length !== 50 || items.some((i) => i.status !== 'pending')
        ? `Herald listed ${items.length} items, expected 50 pending`
        : undefined,
    flat: { target: `flat (×${1 - FLAT}–×${1 + FLAT})`, pass: (g) => g >= 1 - FLAT && g <= 1 + FLAT },
  });
}
