// A post's status is derived from its targets (ARCHITECTURE.md "The publishing pipeline" 4): any target still
// in flight → publishing; otherwise published, failed, or partially_published. Every change of the post's
// status appends its event in the same transaction.
import type { Queryable } from '../../db/pool.ts';
import { appendEvent, type EventType } from '../events/outbox.ts';
import { findPost, type PostStatus } from '../posts/posts.repo.ts';
import { renderPost, type MediaLists } from '../posts/posts.view.ts';

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

/** Recomputes the post's status from its targets; on a change, stores it and appends the event. Call inside a transaction. */
export async function refreshPostStatus(db: Queryable, workspaceId: string, postId: string, media: MediaLists): Promise<PostStatus | undefined> {
  const post = await findPost(db, workspaceId, postId, true);
  if (!post) return undefined;
  const { rows } = await db.query<{ status: string; published_at: Date | null }>(
    'SELECT status, published_at FROM post_targets WHERE workspace_id = $1 AND post_id = $2',
    [workspaceId, postId],
  );
  const next = deriveStatus(rows.map((r) => r.status));
  if (!next || next === post.status) return post.status;
  const publishedAt = next === 'published' || next === 'partially_published'
    ? new Date(Math.max(...rows.filter((r) => r.published_at).map((r) => r.published_at!.getTime())))
    : null;
  const { rows: updated } = await db.query(
    `UPDATE posts SET status = $3, published_at = $4, updated_at = now() WHERE workspace_id = $1 AND id = $2
     RETURNING id, workspace_id, brand_id, content, platforms, platform_options, media_ids, status, publish_now, schedule_at, published_at, created_via, approval, created_at, updated_at`,
    [workspaceId, postId, next, publishedAt],
  );
  const event = EVENT[next];
  if (event) await appendEvent(db, workspaceId, event, await renderPost(db, workspaceId, updated[0], media));
  return next;
}
