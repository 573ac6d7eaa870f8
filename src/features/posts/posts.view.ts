// The public representation of a post (docs/api.md "Posts"), assembled from its row, targets and attempts.
import type { Queryable } from '../../db/pool.ts';
import { findAttempts, findTargets, type AttemptRow, type PostRow, type TargetRow } from './posts.repo.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Renders the `media` lists of posts, one query for all (the media feature: src/features/media). */
export interface MediaLists {
  renderLists(db: Queryable, workspaceId: string, lists: string[][]): Promise<Record<string, unknown>[][]>;
}

function targetJson(t: TargetRow, attempts: AttemptRow[]): Record<string, unknown> {
  return {
    id: t.id,
    platform: t.platform,
    connection_id: t.connection_id,
    sandbox: t.sandbox,
    status: t.status,
    platform_post_id: t.platform_post_id,
    url: t.url,
    published_at: iso(t.published_at),
    attempt_count: t.attempt_count,
    attempts: attempts.map((a) => ({
      started_at: a.started_at.toISOString(),
      finished_at: iso(a.finished_at),
      duration_ms: a.duration_ms,
      outcome: a.outcome,
      error_code: a.error_code,
    })),
    error: t.error,
  };
}

/** `attemptsByTarget`: the attempts of (at least) these targets, grouped once for a whole page of posts. */
export function postJson(
  p: PostRow,
  targets: TargetRow[],
  attemptsByTarget: Map<string, AttemptRow[]>,
  media: Record<string, unknown>[],
): Record<string, unknown> {
  return {
    id: p.id,
    object: 'post',
    workspace_id: p.workspace_id,
    brand_id: p.brand_id,
    content: p.content,
    platforms: p.platforms,
    platform_options: p.platform_options,
    media,
    status: p.status,
    publish_now: p.publish_now,
    schedule_at: iso(p.schedule_at),
    published_at: iso(p.published_at),
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
    created_via: p.created_via,
    approval: p.approval,
    targets: targets.map((t) => targetJson(t, attemptsByTarget.get(t.id) ?? [])),
  };
}

/**
 * Representations of several posts with three extra queries in all (targets, attempts, media), whatever their
 * number; two when the caller has just read the posts' `targets` (in `post_id, position` order) and passes them.
 */
export async function renderPosts(
  db: Queryable,
  workspaceId: string,
  posts: PostRow[],
  media: MediaLists,
  targets?: TargetRow[],
): Promise<Record<string, unknown>[]> {
  targets ??= await findTargets(
    db,
    workspaceId,
    posts.map((p) => p.id),
  );
  const attempts = await findAttempts(
    db,
    workspaceId,
    targets.map((t) => t.id),
  );
  const mediaLists = await media.renderLists(
    db,
    workspaceId,
    posts.map((p) => p.media_ids),
  );
  const byPost = Map.groupBy(targets, (t) => t.post_id);
  const attemptsByTarget = Map.groupBy(attempts, (a) => a.target_id);
  return posts.map((p, i) => postJson(p, byPost.get(p.id) ?? [], attemptsByTarget, mediaLists[i]!));
}

export async function renderPost(
  db: Queryable,
  workspaceId: string,
  post: PostRow,
  media: MediaLists,
): Promise<Record<string, unknown>> {
  return (await renderPosts(db, workspaceId, [post], media))[0]!;
}
