// Published posts with metric readings, seeded by SQL in one INSERT … SELECT per table (generate_series), as the
// metrics sync would have written them: per target, 5 metrics × 10 readings (50 snapshot rows) and its rollup row
// holding the last reading. Targets 1…WINDOW_TARGETS are published in the last 30 days; later ones long before,
// so they add snapshot rows without adding targets to the summary's window.
import pg from 'pg';
import type { Workspace } from './herald.ts';

export const WINDOW_TARGETS = 200;
export const SNAPSHOT_METRICS = ['impressions', 'reach', 'likes', 'comments', 'shares'] as const;
export const READINGS = 10;
/** Snapshot rows per target. */
export const ROWS_PER_TARGET = SNAPSHOT_METRICS.length * READINGS;
const PLATFORMS = ['x', 'linkedin', 'mastodon', 'bluesky'];

/** Adds targets number `from`…`to` (inclusive), each with its post, 50 snapshots and its rollup row. */
export async function seedMetrics(url: string, ws: Workspace, from: number, to: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const connections = PLATFORMS.map((p) => ws.connections.get(p) ?? null);
  // Window targets: 3 to 28 days old. The others: from 60 days back, 20 minutes apart (1M rows: ~280 days).
  const publishedAt = `CASE WHEN g <= ${WINDOW_TARGETS}
      THEN now() - interval '3 days' - g * interval '3 hours'
      ELSE now() - interval '60 days' - g * interval '20 minutes' END`;
  // Reading r (1…10) of metric m (1…5) of target g: cumulative, growing with r, different per target.
  const value = `((g % 97) + 1) * r * (ARRAY[50, 40, 4, 1, 1])[m]`;
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO posts (id, workspace_id, brand_id, content, platforms, status, published_at, created_via, created_by,
                          created_at, updated_at)
       SELECT 'post_metric' || lpad(g::text, 19, '0'), $1, $2, 'Seeded post with metrics number ' || g,
              ARRAY[($4::text[])[g % 4 + 1]], 'published', ${publishedAt}, 'api', $3, ${publishedAt}, ${publishedAt}
         FROM generate_series($5::int, $6::int) AS g`,
      [ws.workspaceId, ws.brandId, ws.userId, PLATFORMS, from, to],
    );
    await client.query(
      `INSERT INTO post_targets (id, workspace_id, post_id, position, platform, connection_id, sandbox, status,
                                 platform_post_id, published_at, attempt_count)
       SELECT 'tgt_metric' || lpad(g::text, 20, '0'), $1, 'post_metric' || lpad(g::text, 19, '0'), 0,
              ($2::text[])[g % 4 + 1], ($3::text[])[g % 4 + 1], true, 'published', 'seed' || g, ${publishedAt}, 1
         FROM generate_series($4::int, $5::int) AS g`,
      [ws.workspaceId, PLATFORMS, connections, from, to],
    );
    await client.query(
      `INSERT INTO metric_snapshots (workspace_id, target_id, metric, value, status, captured_at, source)
       SELECT $1, 'tgt_metric' || lpad(g::text, 20, '0'), ($2::text[])[m], ${value}, 'ok',
              ${publishedAt} + r * interval '4 hours', 'sandbox'
         FROM generate_series($3::int, $4::int) AS g, generate_series(1, ${SNAPSHOT_METRICS.length}) AS m,
              generate_series(1, ${READINGS}) AS r`,
      [ws.workspaceId, SNAPSHOT_METRICS, from, to],
    );
    const r = READINGS;
    await client.query(
      `INSERT INTO target_metrics (target_id, workspace_id, post_id, brand_id, connection_id, platform, sandbox,
                                   published_at, latest, unavailable, first_captured_at, last_captured_at, sync_count)
       SELECT 'tgt_metric' || lpad(g::text, 20, '0'), $1, 'post_metric' || lpad(g::text, 19, '0'), $2,
              ($3::text[])[g % 4 + 1], ($4::text[])[g % 4 + 1], true, ${publishedAt},
              jsonb_build_object(${SNAPSHOT_METRICS.map((name, i) => `'${name}', ${value.replace(/\bm\b/g, String(i + 1)).replace(/\br\b/g, String(r))}`).join(', ')}),
              ARRAY['quotes', 'saves', 'clicks', 'video_views'], ${publishedAt} + interval '4 hours',
              ${publishedAt} + ${r} * interval '4 hours', ${r}
         FROM generate_series($5::int, $6::int) AS g`,
      [ws.workspaceId, ws.brandId, connections, PLATFORMS, from, to],
    );
    await client.query('COMMIT');
    for (const table of ['posts', 'post_targets', 'metric_snapshots', 'target_metrics'])
      await client.query(`ANALYZE ${table}`);
  } finally {
    await client.end();
  }
}
