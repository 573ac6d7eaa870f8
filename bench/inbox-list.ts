// Benchmark: GET /v1/inbox?status=open&limit=50 with 10,000 and then 1,000,000 inbox items in the workspace (a fifth
// open, across the Sandbox's X and Mastodon connections; seeded by SQL with generate_series), against a floor server
// running the same queries through `pg` (bench/floor/inbox-list-server.ts). The target: Herald's p99 flat
// (±50 %) from 10k to 1M; the floor ratio is shown, with the approvals list's bar (≤ 2 × the floor's p99).
import pg from 'pg';
import type { Workspace } from './lib/herald.ts';
import { listAtSizes, sizeLabel } from './lib/list-scale.ts';
import type { BenchContext, Row } from './lib/report.ts';

/** "Flat": p99 at the largest size within ±50 % of p99 at the smallest. */
const FLAT = 0.5;
const STATUSES = ['open', 'replied', 'resolved', 'archived', 'hidden'];
const KINDS = ['comment', 'reply', 'mention', 'dm'];

/**
 * Adds items number `from`…`to` with one INSERT … SELECT: item n was received n seconds ago, on X or Mastodon
 * (alternating), in one of 5,000 threads, by one of 20,000 authors; statuses cycle, so `status=open` is a fifth.
 */
export async function seedInboxItems(url: string, ws: Workspace, from: number, to: number): Promise<void> {
  const x = ws.connections.get('x');
  const mastodon = ws.connections.get('mastodon');
  if (!x || !mastodon) throw new Error('the Sandbox has no X or Mastodon connection');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO inbox_items (id, workspace_id, connection_id, brand_id, platform, kind, platform_post_id, thread_id,
              parent_id, platform_item_id, author, text, received_at, ingested_at, status, labels)
       SELECT 'inb_seed' || lpad(g::text, 22, '0'), $1, CASE WHEN g % 2 = 0 THEN $3 ELSE $4 END, $2,
              CASE WHEN g % 2 = 0 THEN 'x' ELSE 'mastodon' END, ($5::text[])[g % 4 + 1], 'pp' || g % 5000,
              'th' || g % 5000, NULL, 'pi' || g,
              jsonb_build_object('platform_user_id', 'u' || g % 20000, 'username', 'user' || g % 20000,
                'display_name', 'User ' || g % 20000, 'avatar_url', NULL),
              'Seeded comment ' || g || ': how much is it?', now() - g * interval '1 second',
              now() - g * interval '1 second', ($6::text[])[g % 5 + 1],
              CASE WHEN g % 7 = 0 THEN ARRAY['vip'] ELSE '{}'::text[] END
         FROM generate_series($7::int, $8::int) AS g`,
      [ws.workspaceId, ws.brandId, x, mastodon, KINDS, STATUSES, from, to],
    );
    await client.query('ANALYZE inbox_items');
  } finally {
    await client.end();
  }
}

export async function inboxListBenchmark(ctx: BenchContext): Promise<Row[]> {
  // BENCH_INBOX_SIZES (comma-separated) overrides the sizes, e.g. `10000` on a loaded machine.
  const sizes = process.env.BENCH_INBOX_SIZES
    ? process.env.BENCH_INBOX_SIZES.split(',').map(Number)
    : ctx.quick
      ? [1_000, 10_000]
      : [10_000, 1_000_000];
  return listAtSizes(ctx, {
    name: 'Inbox list',
    logName: 'inbox list',
    unit: 'items',
    describe: (size) => `status=open, ${sizeLabel(size)} items`,
    path: '/v1/inbox?status=open&limit=50',
    floor: 'floor/inbox-list-server.ts',
    dataDir: 'inbox',
    sizes,
    seed: seedInboxItems,
    check: ({ items }) =>
      items.length !== 50 || items.some((i) => i.status !== 'open')
        ? `Herald listed ${items.length} items, expected 50 open`
        : undefined,
    flat: { target: `flat (×${1 - FLAT}–×${1 + FLAT})`, pass: (g) => g >= 1 - FLAT && g <= 1 + FLAT },
  });
}
