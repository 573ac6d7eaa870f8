// A queue of future posts seeded in bulk: scheduled posts, one target each on the workspace's Mastodon sandbox
// connection, and each target's `publish_target` job (key `publish:<target>`, payload as Herald queues it), due
// between a day and about three years ahead, so nothing publishes during a run. One INSERT … SELECT
// generate_series per table, the rows Herald itself writes for `POST /v1/posts` with `schedule_at`.
import pg from 'pg';
import type { Workspace } from './herald.ts';

/**
 * Adds `count` scheduled posts with their targets and jobs; post n is due one day plus n × 90 s from now. The
 * graphile-worker schema must exist (Herald has started once on the database).
 */
export async function seedFutureQueue(url: string, ws: Workspace, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO posts (id, workspace_id, brand_id, content, platforms, status, schedule_at, created_via, created_by)
       SELECT 'post_queue' || lpad(g::text, 20, '0'), $1, $2, 'Queued post number ' || g, ARRAY['mastodon'],
              'scheduled', now() + interval '1 day' + g * interval '90 seconds', 'api', $3
         FROM generate_series(1, $4::int) AS g`,
      [ws.workspaceId, ws.brandId, ws.userId, count],
    );
    await client.query(
      `INSERT INTO post_targets (id, workspace_id, post_id, position, platform, connection_id, sandbox, status)
       SELECT 'tgt_queue' || lpad(g::text, 21, '0'), $1, 'post_queue' || lpad(g::text, 20, '0'), 0, 'mastodon', $2,
              true, 'scheduled'
         FROM generate_series(1, $3::int) AS g`,
      [ws.workspaceId, ws.connections.get('mastodon'), count],
    );
    await client.query(
      `INSERT INTO graphile_worker._private_jobs (task_id, payload, run_at, max_attempts, key)
       SELECT t.id,
              json_build_object('target_id', 'tgt_queue' || lpad(g::text, 21, '0'),
                                'schedule_at', to_char((now() + interval '1 day' + g * interval '90 seconds') AT TIME ZONE 'UTC',
                                                       'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
              now() + interval '1 day' + g * interval '90 seconds', 10, 'publish:tgt_queue' || lpad(g::text, 21, '0')
         FROM generate_series(1, $1::int) AS g,
              (SELECT id FROM graphile_worker._private_tasks WHERE identifier = 'publish_target') AS t`,
      [count],
    );
    const { rows } = await client.query<{ n: string }>(
      "SELECT count(*) AS n FROM graphile_worker._private_jobs WHERE key LIKE 'publish:tgt_queue%'",
    );
    if (Number(rows[0]!.n) !== count)
      throw new Error(`seeded ${rows[0]!.n} jobs, not ${count}: no publish_target task`);
    await client.query('COMMIT');
    for (const table of ['posts', 'post_targets', 'graphile_worker._private_jobs'])
      await client.query(`ANALYZE ${table}`);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}
