// SQL of a post's place in a queue (posts.queue_id, posts.queue_slot; migration 0032), owned by the posts
// repository and called by the queues feature (src/features/queues/queues.assign.ts), which decides the slots.
// Every function takes the workspace id.
import type { Queryable } from '../../db/pool.ts';
import { POST_COLUMNS, type PostRow } from './posts.repo.ts';

/** The post just created holds this slot of this queue. */
export async function placeInQueue(
  db: Queryable,
  workspaceId: string,
  postId: string,
  queueId: string,
  slot: Date,
): Promise<void> {
  await db.query(`UPDATE posts SET queue_id = $3, queue_slot = $4 WHERE workspace_id = $1 AND id = $2`, [
    workspaceId,
    postId,
    queueId,
    slot,
  ]);
}

/**
 * Posts holding a slot of the queue in [from, to], earliest first, each slot as epoch milliseconds: the preview reads
 * up to 1,000 of them per call, and a number costs far less to read than a timestamp parsed into a Date.
 */
export async function takenSlots(
  db: Queryable,
  workspaceId: string,
  queueId: string,
  from: Date,
  to: Date,
): Promise<Array<{ id: string; at_ms: number }>> {
  const { rows } = await db.query<{ id: string; at_ms: number }>({
    name: 'queues.taken-slots',
    text: `SELECT id, (extract(epoch FROM queue_slot) * 1000)::float8 AS at_ms FROM posts
      WHERE queue_id = $2 AND queue_slot >= $3 AND queue_slot <= $4 AND workspace_id = $1
      ORDER BY queue_slot`,
    values: [workspaceId, queueId, from, to],
  });
  return rows;
}

/**
 * Slots of the queue in [from, to] held by a post or by a claim (queue_claims, migration 0035), in order: what a new
 * post may not take. One statement, so one snapshot: an add committing meanwhile is seen either by its claim or by
 * its post, never by neither.
 */
export async function heldSlots(
  db: Queryable,
  workspaceId: string,
  queueId: string,
  from: Date,
  to: Date,
): Promise<Date[]> {
  const { rows } = await db.query<{ at: Date }>(
    `SELECT queue_slot AS at FROM posts
      WHERE queue_id = $2 AND queue_slot >= $3 AND queue_slot <= $4 AND workspace_id = $1
     UNION
     SELECT slot FROM queue_claims WHERE queue_id = $2 AND slot >= $3 AND slot <= $4 AND workspace_id = $1
     ORDER BY 1`,
    [workspaceId, queueId, from, to],
  );
  return rows.map((r) => r.at);
}

/** The latest slot any post or claim holds in the queue, or null. */
export async function lastTakenSlot(db: Queryable, workspaceId: string, queueId: string): Promise<Date | null> {
  const { rows } = await db.query<{ at: Date | null }>(
    `SELECT greatest(
       (SELECT max(queue_slot) FROM posts WHERE queue_id = $2 AND queue_slot IS NOT NULL AND workspace_id = $1),
       (SELECT max(slot) FROM queue_claims WHERE queue_id = $2 AND workspace_id = $1)) AS at`,
    [workspaceId, queueId],
  );
  return rows[0]?.at ?? null;
}

/**
 * The posts waiting to go out on any of these connections in [from, to] (queued or not), each with the connection:
 * what a queue's minimum spacing keeps its slots away from.
 */
export async function busyTimes(
  db: Queryable,
  workspaceId: string,
  connectionIds: readonly string[],
  from: Date,
  to: Date,
): Promise<Array<{ id: string; at: Date; connection_id: string }>> {
  const { rows } = await db.query<{ id: string; at: Date; connection_id: string }>(
    `SELECT p.id, p.schedule_at AS at, t.connection_id FROM posts p JOIN post_targets t ON t.post_id = p.id
      WHERE p.workspace_id = $1 AND p.status IN ('scheduled', 'pending_approval') AND p.deleted_at IS NULL
        AND p.schedule_at >= $3 AND p.schedule_at <= $4 AND t.connection_id = ANY($2)`,
    [workspaceId, connectionIds, from, to],
  );
  return rows;
}

/**
 * The queue of a post that holds a slot, row-locked, and that slot (null when it holds none): taken before the
 * post's own row lock.
 */
export async function lockQueueOfPost(
  db: Queryable,
  workspaceId: string,
  postId: string,
): Promise<{ queueId: string; slot: Date } | null> {
  const { rows } = await db.query<{ id: string; slot: Date }>(
    `SELECT q.id, p.queue_slot AS slot FROM posts p JOIN queues q ON q.id = p.queue_id AND q.workspace_id = p.workspace_id
      WHERE p.workspace_id = $1 AND p.id = $2 AND p.queue_slot IS NOT NULL FOR UPDATE OF q`,
    [workspaceId, postId],
  );
  return rows[0] ? { queueId: rows[0].id, slot: rows[0].slot } : null;
}

/** Posts (scheduled, or awaiting approval) holding a slot of the queue from `from` on, in slot order, with the connections of their targets. */
export async function waitingPosts(
  db: Queryable,
  workspaceId: string,
  queueId: string,
  from: Date,
): Promise<Array<{ id: string; queue_slot: Date; connection_ids: string[] }>> {
  const { rows } = await db.query<{ id: string; queue_slot: Date; connection_ids: string[] }>(
    `SELECT p.id, p.queue_slot,
            coalesce((SELECT array_agg(DISTINCT t.connection_id) FROM post_targets t
                       WHERE t.post_id = p.id AND t.connection_id IS NOT NULL), '{}') AS connection_ids
       FROM posts p
      WHERE p.queue_id = $2 AND p.queue_slot >= $3 AND p.workspace_id = $1
        AND p.status IN ('scheduled', 'pending_approval') AND p.deleted_at IS NULL
      ORDER BY p.queue_slot`,
    [workspaceId, queueId, from],
  );
  return rows;
}

/** The posts leave their slots (they keep their queue_id: cancelled, deleted, or pinned at their own time). */
export async function releaseSlots(db: Queryable, workspaceId: string, postIds: readonly string[]): Promise<void> {
  if (postIds.length === 0) return;
  await db.query(`UPDATE posts SET queue_slot = NULL WHERE workspace_id = $1 AND id = ANY($2)`, [workspaceId, postIds]);
}

/**
 * Each post takes its new slot (and so its new schedule_at), all in one statement; returns the moved posts and the
 * ids of their scheduled targets with their new times, for their publish jobs.
 */
export async function moveToSlots(
  db: Queryable,
  workspaceId: string,
  moves: ReadonlyArray<{ id: string; at: Date }>,
): Promise<{ posts: PostRow[]; targets: Array<{ id: string; postId: string; at: Date }> }> {
  if (moves.length === 0) return { posts: [], targets: [] };
  const { rows: posts } = await db.query<PostRow>(
    `UPDATE posts p SET schedule_at = m.at, queue_slot = m.at, updated_at = now()
       FROM unnest($2::text[], $3::timestamptz[]) AS m(id, at)
      WHERE p.workspace_id = $1 AND p.id = m.id
      RETURNING ${POST_COLUMNS.replaceAll(/(^|,\s*)(\w+)/g, '$1p.$2')}`,
    [workspaceId, moves.map((m) => m.id), moves.map((m) => m.at)],
  );
  const { rows: targets } = await db.query<{ id: string; postId: string; at: Date }>(
    `SELECT t.id, t.post_id AS "postId", m.at FROM post_targets t JOIN unnest($2::text[], $3::timestamptz[]) AS m(id, at) ON t.post_id = m.id
      WHERE t.workspace_id = $1 AND t.status = 'scheduled'`,
    [workspaceId, moves.map((m) => m.id), moves.map((m) => m.at)],
  );
  const order = new Map(moves.map((m, i) => [m.id, i]));
  return { posts: posts.sort((a, b) => order.get(a.id)! - order.get(b.id)!), targets };
}

/** A deleted queue lets go of its posts: they keep their times, outside any queue. */
export async function detachQueue(db: Queryable, workspaceId: string, queueId: string): Promise<void> {
  await db.query(`UPDATE posts SET queue_id = NULL, queue_slot = NULL WHERE queue_id = $2 AND workspace_id = $1`, [
    workspaceId,
    queueId,
  ]);
}
