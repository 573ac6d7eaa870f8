// What creating and changing a post share: the service's dependencies, the API's timestamps, the connection of
// each target, the targets themselves and their hand-over to the engine, and the events a write emits.
import type { ServiceContext } from '../../app/context.ts';
import { AppError } from '../../app/errors.ts';
import { queuePublishJobs } from '../../app/publish-queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import type { PlatformRegistry } from '../../platforms/registry.ts';
import { appendEvents, type EventType } from '../events/outbox.ts';
import type { MediaService } from '../media/media.service.ts';
import { insertTargets, makeTargetsDueNow } from '../publishing/targets.repo.ts';
import * as repo from './posts.repo.ts';
import type { PostRow } from './posts.repo.ts';
import { resolveConnections, type Resolution, type TargetPlan } from './posts.connections.ts';
import { renderPost } from './posts.view.ts';
import type { QueueClaims } from '../queues/queues.assign.ts';

export interface PostsDeps {
  clock: Clock;
  platforms: PlatformRegistry;
  /** Checks `media_ids` (exist, ready, fit each platform) and renders a post's `media`: src/features/media. */
  media: Pick<MediaService, 'postIssues' | 'renderLists' | 'mediaPlans' | 'prepareVariants' | 'mediaForPost'>;
  /** Slots for adds to a queue by group commit (src/features/queues/queues.claims.ts); absent: under the queue's lock. */
  queueClaims?: QueueClaims;
}

/** A timestamp from the API: ISO 8601 with a zone (the schema checked the shape); normalised to a Date. */
export function parseTime(
  value: string,
  path: string,
  code: 'PUBLIC_API_BODY_INVALID' | 'PUBLIC_API_QUERY_INVALID' = 'PUBLIC_API_BODY_INVALID',
): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new AppError(code, `${path.slice(1)} is not a valid time.`, {
      details: [{ path, message: 'is not a valid time' }],
    });
  return date;
}

/** RFC 7396 JSON Merge Patch of plain objects. */

/** The connection of every target, and the issues when the post will publish without one (posts.connections.ts). */
export function resolveTargets(
  deps: PostsDeps,
  ctx: ServiceContext,
  brandId: string,
  platforms: PlatformName[],
  connectionIds: string[],
  required: boolean,
): Promise<Resolution> {
  return resolveConnections(ctx.db, deps.platforms, {
    workspaceId: ctx.workspaceId,
    brandId,
    platforms,
    connectionIds,
    required,
  });
}

/** Renders the post and appends one event of each type with that view; returns the view. */
export async function emitPost(
  deps: PostsDeps,
  ctx: ServiceContext,
  post: PostRow,
  types: EventType[],
): Promise<Record<string, unknown>> {
  return emitView(ctx, await renderPost(ctx.db, ctx.workspaceId, post, deps.media), types);
}

/** Appends one event of each type with this view (one insert and fan-out for them all); returns the view. */
export async function emitView(
  ctx: ServiceContext,
  view: Record<string, unknown>,
  types: EventType[],
): Promise<Record<string, unknown>> {
  await appendEvents(
    ctx.db,
    types.map((type) => ({ workspaceId: ctx.workspaceId, type, data: view })),
  );
  return view;
}

export async function createTargets(ctx: ServiceContext, post: PostRow, plans: TargetPlan[]): Promise<string[]> {
  const status = post.status === 'scheduled' ? 'scheduled' : 'pending';
  const targets = plans.map(
    (plan) =>
      ({
        id: newId('tgt'),
        platform: plan.platform,
        connectionId: plan.connectionId,
        sandbox: ctx.workspaceMode === 'test',
        status,
      }) as const,
  );
  await insertTargets(ctx.db, ctx.workspaceId, post.id, targets);
  return targets.map((t) => t.id);
}

/** Hands the post's targets in `from` to the engine at once: due now, jobs queued, the post `publishing`. */
export async function publishNow(
  deps: PostsDeps,
  ctx: ServiceContext,
  post: PostRow,
  from: Array<'pending' | 'scheduled' | 'failed'>,
): Promise<PostRow> {
  const ids = await makeTargetsDueNow(ctx.db, ctx.workspaceId, post.id, from);
  await queuePublishJobs(ctx.db, ids, deps.clock.now(), null);
  return repo.updatePost(ctx.db, ctx.workspaceId, post.id, {
    status: 'publishing',
    publishNow: true,
    scheduleAt: null,
  });
}
