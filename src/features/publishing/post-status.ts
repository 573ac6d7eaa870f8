// A post's status is derived from its targets (docs/architecture.md "The publishing pipeline" 4): any target still
// in flight → publishing; otherwise published, failed, partially_published or cancelled, reading the parts of the
// targets that did not publish for what of them is out. Every change of the post's status appends its event in the
// same transaction.
import type { Queryable } from '../../db/pool.ts';
import { appendEvents, type EventType } from '../events/outbox.ts';
import {
  findTargetsOfPosts,
  lockPosts,
  partsOutOf,
  setPostStatuses,
  type PostRow,
  type PostStatus,
  type TargetRow,
} from '../posts/posts.repo.ts';
import { renderPosts, type MediaLists } from '../posts/posts.view.ts';

/** A target as its post's status reads it: its status and, for one that did not publish, what of it is out. */
export interface TargetOutcome {
  status: string;
  /**
   * A part of this failed or cancelled target is on the platform (`published`: a thread stopped after its first
   * parts), or may be (`unknown`: sent without an answer when the target was cancelled, and never looked up again).
   */
  partsOut?: 'published' | 'unknown';
}

/**
 * The post's status from its targets (docs/decisions.md "What a post's status says went out"): `published` when every
 * target is; `partially_published` when anything of it is on the platform or may be (a published target, or a part
 * of a failed or cancelled one) and not all of it; otherwise `failed` beside a failed target, else `cancelled`. So
 * `failed` and `cancelled` say that nothing of the post is out, and are never said of a post that has a part out.
 */
export function deriveStatus(targets: TargetOutcome[]): PostStatus | undefined {
  if (targets.length === 0) return undefined;
  if (targets.some((t) => t.status === 'scheduled' || t.status === 'publishing')) return 'publishing';
  if (targets.some((t) => t.status === 'pending')) return undefined; // a draft's targets: not the engine's business
  const published = targets.filter((t) => t.status === 'published').length;
  if (published === targets.length) return 'published';
  if (published > 0 || targets.some((t) => t.partsOut)) return 'partially_published';
  if (targets.some((t) => t.status === 'failed')) return 'failed';
  return 'cancelled';
}

const EVENT: Partial<Record<PostStatus, EventType>> = {
  publishing: 'post.publishing',
  published: 'post.published',
  partially_published: 'post.partially_published',
  failed: 'post.failed',
  cancelled: 'post.cancelled',
};

/**
 * Recomputes the post's status from its targets; on a change, stores it and appends the event. Call inside a
 * transaction.
 */
export async function refreshPostStatus(
  db: Queryable,
  workspaceId: string,
  postId: string,
  media: MediaLists,
): Promise<PostStatus | undefined> {
  return (await refreshPostStatuses(db, [{ workspaceId, postId }], media))[0];
}

/**
 * The same for several posts at once (the publishing engine's batches), with a fixed number of statements
 * whatever their number: posts locked in id order, their targets (read once, for the status and the render), the
 * parts of those that failed or were cancelled (when any did), one update, one render per workspace, the events. Returns each post's status (undefined for a post that is
 * gone or not in that workspace). A caller that has already locked the posts in this transaction (to keep the
 * lock order) passes the rows it got as `locked`.
 */
export async function refreshPostStatuses(
  db: Queryable,
  posts: Array<{ workspaceId: string; postId: string }>,
  media: MediaLists,
  locked?: PostRow[],
): Promise<Array<PostStatus | undefined>> {
  const wanted = new Set(posts.map((p) => `${p.workspaceId}/${p.postId}`));
  const rows = (locked ?? (await lockPosts(db, [...new Set(posts.map((p) => p.postId))]))).filter((r) =>
    wanted.has(`${r.workspace_id}/${r.id}`),
  );
  // Whole rows: the events below render them, without reading them again.
  const targets = await findTargetsOfPosts(
    db,
    rows.map((r) => r.id),
  );
  const byPost = Map.groupBy(targets, (t) => t.post_id);
  // What is out of the targets that did not publish (none on the common path, where every target published).
  const parts = new Map(
    (
      await partsOutOf(
        db,
        targets.filter((t) => t.status === 'failed' || t.status === 'cancelled').map((t) => t.id),
      )
    ).map((p) => [p.target_id, p]),
  );
  const outcome = (t: TargetRow): TargetOutcome => {
    const of = parts.get(t.id);
    if (of?.published_at) return { status: t.status, partsOut: 'published' };
    return t.status === 'cancelled' && of?.unknown ? { status: t.status, partsOut: 'unknown' } : { status: t.status };
  };
  const status = new Map(rows.map((r) => [r.id, r.status]));
  const changes: Array<{ id: string; status: PostStatus; publishedAt: Date | null }> = [];
  for (const post of rows) {
    const of = byPost.get(post.id) ?? [];
    const next = deriveStatus(of.map(outcome));
    if (!next || next === post.status) continue;
    // When the last of what is known to be out went out; null when nothing is known to be (a part that may be).
    const times = of.flatMap((t) => [t.published_at, parts.get(t.id)?.published_at ?? null]).filter((d) => d !== null);
    const publishedAt =
      (next === 'published' || next === 'partially_published') && times.length > 0
        ? new Date(Math.max(...times.map((d) => d.getTime())))
        : null;
    changes.push({ id: post.id, status: next, publishedAt });
    status.set(post.id, next);
  }
  const updated = await setPostStatuses(db, changes);
  const events: Array<{ workspaceId: string; type: EventType; data: unknown }> = [];
  for (const [workspaceId, inWorkspace] of Map.groupBy(updated, (p) => p.workspace_id)) {
    const rendered = await renderPosts(
      db,
      workspaceId,
      inWorkspace,
      media,
      inWorkspace.flatMap((p) => byPost.get(p.id) ?? []),
      // A post only now published has no recycle rule: a rule needs a post published before it.
      { recycleRules: false },
    );
    inWorkspace.forEach((post, i) => {
      const type = EVENT[post.status];
      if (type) events.push({ workspaceId, type, data: rendered[i] });
    });
  }
  await appendEvents(db, events);
  return posts.map((p) => (wanted.has(`${p.workspaceId}/${p.postId}`) ? status.get(p.postId) : undefined));
}
