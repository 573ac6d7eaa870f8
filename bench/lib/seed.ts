// Large tables seeded by SQL in one INSERT … SELECT per table (generate_series), with rows the API reads like
// its own: every post has a target on the workspace's Mastodon sandbox connection, statuses cycle through
// scheduled / published / draft / failed, scheduled ones are due years ahead (no job: nothing publishes).
import pg from 'pg';
import type { Workspace } from './herald.ts';

/** Adds posts number `from`…`to` (inclusive) to the workspace; post n was created n seconds before now. */
export async function seedPosts(url: string, ws: Workspace, from: number, to: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO posts (id, workspace_id, brand_id, content, platforms, status, schedule_at, published_at, created_via, created_by, created_at, updated_at)
       SELECT 'post_seed' || lpad(g::text, 21, '0'), $1, $2, 'Seeded post number ' || g, ARRAY['mastodon'],
              (ARRAY['scheduled', 'published', 'draft', 'failed'])[g % 4 + 1],
              CASE g % 4 WHEN 0 THEN now() + interval '3 years' + g * interval '1 second' WHEN 1 THEN now() - g * interval '1 second' END,
              CASE g % 4 WHEN 1 THEN now() - g * interval '1 second' END,
              'api', $3, now() - g * interval '1 second', now() - g * interval '1 second'
         FROM generate_series($4::int, $5::int) AS g`,
      [ws.workspaceId, ws.brandId, ws.userId, from, to],
    );
    await client.query(
      `INSERT INTO post_targets (id, workspace_id, post_id, position, platform, connection_id, sandbox, status, platform_post_id, url, published_at, attempt_count, created_at, updated_at)
       SELECT 'tgt_seed' || lpad(g::text, 22, '0'), $1, 'post_seed' || lpad(g::text, 21, '0'), 0, 'mastodon', $2, true,
              (ARRAY['scheduled', 'published', 'pending', 'failed'])[g % 4 + 1],
              CASE g % 4 WHEN 1 THEN 'seed' || g END, CASE g % 4 WHEN 1 THEN 'https://sandbox.invalid/@bench/seed' || g END,
              CASE g % 4 WHEN 1 THEN now() - g * interval '1 second' END,
              CASE WHEN g % 4 IN (1, 3) THEN 1 ELSE 0 END,
              now() - g * interval '1 second', now() - g * interval '1 second'
         FROM generate_series($3::int, $4::int) AS g`,
      [ws.workspaceId, ws.connections.get('mastodon'), from, to],
    );
    await client.query('COMMIT');
    await client.query('ANALYZE posts');
    await client.query('ANALYZE post_targets');
  } finally {
    await client.end();
  }
}
