// A post's status is derived from its targets (docs/architecture.md "The publishing pipeline" 4): any target still
// in flight → publishing; otherwise published, failed, or partially_published. Every change of the post's
// status appends its event in the same transaction.
import type { Queryable } from '../../db/pool.ts';
import { appendEvents, type EventType } from '../events/outbox.ts';
import { findTargetsOfPosts, lockPosts, setPostStatuses, type PostRow, type PostStatus } from '../posts/posts.repo.ts';
import { renderPosts, type MediaLists } from '../posts/posts.view.ts';

export function deriveStatus(targets: string[]): PostStatus | undefined {
  if (targets.length === 0) return undefined;
  if (targets.some((s) => s === 'scheduled' || s === 'publishing')) return 'publishing';
  const published = targets.filter((s) => s === 'published').length;
  const failed = targets.filter((s) => s === 'failed').length;
  if (published > 0 && failed === 0) return 'published';
  if (failed > 0 && published === 0) return 'failed';
  if (published > 0 && failed > 0) return 'partially_published';
  return undefined; // pending or cancelled only: not the engine's business
}

const EVENT: Partial<Record<PostStatus, EventType>> = {
  publishing: 'post.publishing',
  published: 'post.published',
  partially_published: 'post.partially_published',
  failed: 'post.failed',
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
 * whatever their number: posts locked in id order, their targets (read once, for the status and the render),
 * one update, one render per workspace, the events. Returns each post's status (undefined for a post that is
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
  const status = new Map(rows.map((r) => [r.id, r.status]));
  const changes: Array<{ id: string; status: PostStatus; publishedAt: Date | null }> = [];
  for (const post of rows) {
    const of = byPost.get(post.id) ?? [];
    const next = deriveStatus(of.map((t) => t.status));
    if (!next || next === post.status) continue;
    const publishedAt =
      next === 'published' || next === 'partially_published'
        ? new Date(Math.max(...of.filter((t) => t.published_at).map((t) => t.published_at!.getTime())))
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
    );
    inWorkspace.forEach((post, i) => {
      const type = EVENT[post.status];
      if (type) events.push({ workspaceId, type, data: rendered[i] });
    });
  }
  await appendEvents(db, events);
  return posts.map((p) => (wanted.has(`${p.workspaceId}/${p.postId}`) ? status.get(p.postId) : undefined));
}
