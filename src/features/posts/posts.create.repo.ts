// SQL of creating a post (owned by the posts repository): the post, its targets and their publish jobs in one
// round trip, through the posts_create function of migration 0031 (docs/decisions.md "Creating a post in one
// statement").
import type { Queryable } from '../../db/pool.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import {
  POST_COLUMNS,
  postValues,
  type NewPost,
  type PostRow,
  type TargetRow,
  type TargetStatus,
} from './posts.repo.ts';

/**
 * A job due further ahead than this is queued without waking anyone: the waker re-reads the queue at least every
 * HERALD_WORKER_POLL_INTERVAL_MS (at most 60 s) and arms its timer then (src/jobs/waker.ts).
 */
export const WAKE_WITHIN_MS = 120_000;

export type NewTargets = Array<{ id: string; platform: PlatformName; connectionId: string | null }>;
export type TargetOptions = { sandbox: boolean; status: TargetStatus; jobsAt: Date | null };

/** posts_create's arguments, in order. */
function createArguments(p: NewPost, targets: NewTargets, t: TargetOptions): unknown[] {
  return [
    ...postValues(p),
    targets.map((x) => x.id),
    targets.map((x) => x.platform),
    targets.map((x) => x.connectionId),
    t.sandbox,
    t.status,
    t.jobsAt,
    p.scheduleAt ? p.scheduleAt.toISOString() : null,
    WAKE_WITHIN_MS,
  ];
}

/** The targets as the view reads them: new rows, no attempts, no parts. */
function writtenTargets(post: PostRow, targets: NewTargets, t: TargetOptions): TargetRow[] {
  return targets.map((x, position) => ({
    id: x.id,
    post_id: post.id,
    position,
    platform: x.platform,
    connection_id: x.connectionId,
    sandbox: t.sandbox,
    status: t.status,
    platform_post_id: null,
    url: null,
    published_at: null,
    attempt_count: 0,
    error: null,
    next_attempt_at: null,
  }));
}

/**
 * A new post, its targets (new rows: no attempts, no parts) and, given `jobsAt`, their publish jobs, in one round
 * trip (posts_create, migration 0031). Returns the post and its targets as the view reads them.
 */
export async function createPostRows(
  db: Queryable,
  p: NewPost,
  targets: NewTargets,
  t: TargetOptions,
): Promise<{ post: PostRow; targets: TargetRow[] }> {
  const { rows } = await db.query<PostRow>({
    name: 'posts.create',
    text: `SELECT ${POST_COLUMNS} FROM posts_create($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,
             $16, $17, $18, $19, $20, $21, $22, $23)`,
    values: createArguments(p, targets, t),
  });
  const post = rows[0]!;
  return { post, targets: writtenTargets(post, targets, t) };
}

/**
 * A queued post at the slot its add claimed, in one round trip (posts_create_claimed, migration 0035): the claim
 * deleted, the post created at the slot (its schedule and jobs; `p.scheduleAt` and `t.jobsAt` only say whether there
 * are any) and placed in the queue, all committing with the caller's transaction. Null when the claim is gone
 * (nothing written): the caller takes a slot under the queue's lock (src/features/queues/queues.assign.ts).
 */
export async function createClaimedPostRows(
  db: Queryable,
  p: NewPost,
  targets: NewTargets,
  t: TargetOptions,
  claim: { queueId: string; slot: Date; claimId: string },
): Promise<{ post: PostRow; targets: TargetRow[] } | null> {
  const { rows } = await db.query<PostRow>({
    name: 'posts.create-claimed',
    text: `SELECT ${POST_COLUMNS} FROM posts_create_claimed($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
             $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26)`,
    values: [...createArguments(p, targets, t), claim.queueId, claim.slot, claim.claimId],
  });
  const post = rows[0];
  if (!post || post.id === null) return null;
  return { post, targets: writtenTargets(post, targets, t) };
}
