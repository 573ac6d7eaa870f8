// The public representation of a post (docs/api.md "Posts"), assembled from its row, targets, attempts and parts.
import type { Queryable } from '../../db/pool.ts';
import {
  findAttempts,
  findParts,
  findTargets,
  type AttemptRow,
  type PostRow,
  type TargetPartRow,
  type TargetRow,
} from './posts.repo.ts';
import { recycleRulesOf } from '../recycling/recycling.view.ts';

import { firstCommentText } from './posts.first-comment.ts';
import type { PART_KINDS } from './posts.view.schemas.ts';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Renders the `media` lists of posts, one query for all (the media feature: src/features/media). */
export interface MediaLists {
  renderLists(db: Queryable, workspaceId: string, lists: string[][]): Promise<Record<string, unknown>[][]>;
}

/**
 * What the target publishes, by kind (as the engine reads them, src/features/publishing/part-texts.ts): the first
 * post, each reply of its thread, then its first comment.
 */
function partKinds(p: PostRow, t: TargetRow): Array<(typeof PART_KINDS)[number]> {
  const options = p.platform_options[t.platform] as Record<string, unknown> | undefined;
  const replies = options && 'thread' in options ? ((options.thread as string[] | undefined)?.length ?? 0) : 0;
  const kinds = ['post' as const, ...Array.from({ length: replies }, () => 'reply' as const)];
  return firstCommentText(options) === undefined ? kinds : [...kinds, 'first_comment'];
}

/**
 * Every part of the target, attempted or not. The engine sends parts in order and stops at the first that fails,
 * so the first part not published is the one the target is on: it carries the target's state and last error;
 * the parts after it have not been attempted. A part of a cancelled target that was sent without an answer (its row
 * still `sending`) is `unknown`: it may be on the platform, and nothing will look it up again.
 */
function partsJson(p: PostRow, t: TargetRow, rows: TargetPartRow[]): Record<string, unknown>[] {
  const byIndex = new Map(rows.map((r) => [r.position, r]));
  const kinds = partKinds(p, t);
  const count = Math.max(kinds.length, ...rows.map((r) => r.position + 1));
  const parts: Record<string, unknown>[] = [];
  let reached = false;
  for (let index = 0; index < count; index++) {
    const row = byIndex.get(index);
    const kind = kinds[index] ?? (index === 0 ? 'post' : 'reply');
    if (row?.state === 'published') {
      parts.push({
        index,
        kind,
        status: 'published',
        platform_post_id: row.platform_post_id,
        url: row.url,
        error: null,
      });
      continue;
    }
    const current = !reached;
    reached = true;
    const status =
      t.status === 'cancelled'
        ? row?.state === 'sending'
          ? 'unknown'
          : 'cancelled'
        : current && (t.status === 'failed' || t.status === 'publishing')
          ? t.status
          : 'pending';
    parts.push({ index, kind, status, platform_post_id: null, url: null, error: current ? t.error : null });
  }
  return parts;
}

function targetJson(p: PostRow, t: TargetRow, attempts: AttemptRow[], rows: TargetPartRow[]): Record<string, unknown> {
  const parts = partsJson(p, t, rows);
  // Part 0 may be out before the target settles (a thread waiting to retry a later part, then cancelled).
  const first = rows.find((r) => r.position === 0 && r.state === 'published');
  return {
    id: t.id,
    platform: t.platform,
    connection_id: t.connection_id,
    sandbox: t.sandbox,
    status: t.status,
    platform_post_id: t.platform_post_id ?? first?.platform_post_id ?? null,
    url: t.url ?? first?.url ?? null,
    published_at: iso(t.published_at),
    attempt_count: t.attempt_count,
    next_attempt_at: iso(t.next_attempt_at),
    attempts: attempts.map((a) => ({
      started_at: a.started_at.toISOString(),
      finished_at: iso(a.finished_at),
      duration_ms: a.duration_ms,
      outcome: a.outcome,
      error_code: a.error_code,
    })),
    error: t.error,
    parts,
  };
}

/**
 * `attemptsByTarget`, `partsByTarget`: the attempts and parts of (at least) these targets, grouped once for a whole
 * page of posts.
 */
export function postJson(
  p: PostRow,
  targets: TargetRow[],
  attemptsByTarget: Map<string, AttemptRow[]>,
  partsByTarget: Map<string, TargetPartRow[]>,
  media: Record<string, unknown>[],
  /** The post's recycle rule as shown (src/features/recycling); null: none. */
  recycle: Record<string, unknown> | null = null,
): Record<string, unknown> {
  return {
    id: p.id,
    object: 'post',
    workspace_id: p.workspace_id,
    brand_id: p.brand_id,
    content: p.content,
    platforms: p.platforms,
    platform_options: p.platform_options,
    brand_additions: p.brand_additions,
    media,
    status: p.status,
    publish_now: p.publish_now,
    schedule_at: iso(p.schedule_at),
    timezone: p.timezone,
    metadata: p.metadata,
    published_at: iso(p.published_at),
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
    created_via: p.created_via,
    approval: p.approval,
    queue_id: p.queue_id,
    queue_slot: iso(p.queue_slot),
    recycled_from: p.recycled_from,
    recycle,
    targets: targets.map((t) => targetJson(p, t, attemptsByTarget.get(t.id) ?? [], partsByTarget.get(t.id) ?? [])),
  };
}

/**
 * Representations of several posts with four extra queries in all (targets, attempts, parts, media), whatever their
 * number; three when the caller has just read the posts' `targets` (in `post_id, position` order) and passes them.
 * One more when the page holds published posts: their recycle rules (src/features/recycling).
 */
export async function renderPosts(
  db: Queryable,
  workspaceId: string,
  posts: PostRow[],
  media: MediaLists,
  targets?: TargetRow[],
  /** `recycleRules: false`: posts that cannot have a recycle rule yet (the engine's just published ones). */
  { recycleRules = true }: { recycleRules?: boolean } = {},
): Promise<Record<string, unknown>[]> {
  targets ??= await findTargets(
    db,
    workspaceId,
    posts.map((p) => p.id),
  );
  const targetIds = targets.map((t) => t.id);
  const attempts = await findAttempts(db, workspaceId, targetIds);
  const parts = await findParts(db, workspaceId, targetIds);
  const mediaLists = await media.renderLists(
    db,
    workspaceId,
    posts.map((p) => p.media_ids),
  );
  const byPost = Map.groupBy(targets, (t) => t.post_id);
  const attemptsByTarget = Map.groupBy(attempts, (a) => a.target_id);
  const partsByTarget = Map.groupBy(parts, (r) => r.target_id);
  const rules = recycleRules ? await recycleRulesOf(db, workspaceId, posts) : new Map<string, never>();
  return posts.map((p, i) =>
    postJson(p, byPost.get(p.id) ?? [], attemptsByTarget, partsByTarget, mediaLists[i]!, rules.get(p.id) ?? null),
  );
}

export async function renderPost(
  db: Queryable,
  workspaceId: string,
  post: PostRow,
  media: MediaLists,
): Promise<Record<string, unknown>> {
  return (await renderPosts(db, workspaceId, [post], media))[0]!;
}

/**
 * A post just created with these targets (as written: no attempts, no parts yet), rendered without reading them
 * back; only its media (if any) is read.
 */
export async function renderCreated(
  db: Queryable,
  workspaceId: string,
  post: PostRow,
  targets: TargetRow[],
  media: MediaLists,
): Promise<Record<string, unknown>> {
  const [mediaList] = post.media_ids.length > 0 ? await media.renderLists(db, workspaceId, [post.media_ids]) : [[]];
  return postJson(post, targets, new Map(), new Map(), mediaList!);
}
