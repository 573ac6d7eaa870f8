// Reads for one post's analytics: its targets with their rollup rows, and every reading of their metrics. Every
// function takes the workspace id.
import type { Queryable } from '../../db/pool.ts';

export interface PostTargetMetrics {
  target_id: string;
  platform: string;
  connection_id: string | null;
  status: string;
  published_at: Date | null;
  /** Null until the sync has enrolled the target (or for targets that never published). */
  latest: Record<string, number> | null;
  unavailable: string[] | null;
  last_captured_at: Date | null;
}

export async function postTargetMetrics(
  db: Queryable,
  workspaceId: string,
  postId: string,
): Promise<PostTargetMetrics[]> {
  const { rows } = await db.query<PostTargetMetrics>(
    `SELECT t.id AS target_id, t.platform, t.connection_id, t.status, t.published_at,
            m.latest, m.unavailable, m.last_captured_at
       FROM post_targets t
       LEFT JOIN target_metrics m ON m.target_id = t.id
      WHERE t.workspace_id = $1 AND t.post_id = $2
      ORDER BY t.position, t.id`,
    [workspaceId, postId],
  );
  return rows;
}

export interface Reading {
  target_id: string;
  metric: string;
  value: string;
  captured_at: Date;
}

/** The `ok` readings of these targets, oldest first per target and metric. */
export async function readings(db: Queryable, workspaceId: string, targetIds: readonly string[]): Promise<Reading[]> {
  if (targetIds.length === 0) return [];
  const { rows } = await db.query<Reading>(
    `SELECT target_id, metric, value, captured_at
       FROM metric_snapshots
      WHERE workspace_id = $1 AND target_id = ANY($2::text[]) AND status = 'ok'
      ORDER BY target_id, metric, captured_at, id`,
    [workspaceId, targetIds],
  );
  return rows;
}
