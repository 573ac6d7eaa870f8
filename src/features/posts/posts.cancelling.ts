// Cancelling a post while it is being published, and the 409 a change meets while a platform call is in flight
// (cancel and retry share it). Split from posts.changes.ts, which calls both.
import type { ServiceContext } from '../../app/context.ts';
import { AppError } from '../../app/errors.ts';
import { removePublishJobs } from '../../app/publish-queue.ts';
import { refreshPostStatus } from '../publishing/post-status.ts';
import * as targetsRepo from '../publishing/targets.repo.ts';
import * as repo from './posts.repo.ts';
import type { PostRow } from './posts.repo.ts';
import { renderPost } from './posts.view.ts';
import { emitPost, type PostsDeps } from './posts.writing.ts';

/**
 * Seconds a client waits before asking again while a platform call is in flight: one call ends within seconds
 * (at most HERALD_PLATFORM_TIMEOUT_MS), and the target then waits for its next attempt or has settled.
 */
const IN_FLIGHT_RETRY_AFTER_SECONDS = 2;

export function inFlight(action: 'cancelled' | 'retried', targets: Array<{ platform: string }>): AppError {
  const platforms = targets.map((t) => t.platform).join(', ');
  return new AppError(
    'PUBLIC_API_PUBLISH_IN_FLIGHT',
    `A platform call for this post is in flight (${platforms}); it cannot be ${action} this instant. Try again in ${IN_FLIGHT_RETRY_AFTER_SECONDS} seconds.`,
    {
      details: targets.map((t) => ({
        platform: t.platform,
        rule: 'in_flight',
        message: `${t.platform} is being called.`,
      })),
      headers: { 'retry-after': String(IN_FLIGHT_RETRY_AFTER_SECONDS) },
    },
  );
}

/**
 * Cancel of a post being published: every target that has not gone out and that no worker is publishing this
 * instant (scheduled, or waiting between attempts) is cancelled; published and failed targets stay as they are,
 * and the post's status is derived again (cancelled, or partially_published / failed beside settled targets). A
 * target a worker is calling its platform for makes the whole cancel a 409 with Retry-After: cancelling the rest
 * alone would leave a post half cancelled by surprise.
 */
export async function cancelPublishing(
  ctx: ServiceContext,
  post: PostRow,
  deps: PostsDeps,
): Promise<Record<string, unknown>> {
  const busy = await targetsRepo.targetsInFlight(ctx.db, ctx.workspaceId, post.id);
  if (busy.length > 0) throw inFlight('cancelled', busy);
  const cancelled = await targetsRepo.cancelTargets(ctx.db, ctx.workspaceId, post.id);
  if (cancelled.length === 0)
    throw new AppError('PUBLIC_API_STATE_CONFLICT', 'Every target of this post has already published or failed.');
  await removePublishJobs(ctx.db, cancelled);
  // The status's own event (post.cancelled, or post.partially_published / post.failed when other targets had
  // settled); the cancel is announced as post.cancelled in every case.
  const status = await refreshPostStatus(ctx.db, ctx.workspaceId, post.id, deps.media);
  const updated = (await repo.findPost(ctx.db, ctx.workspaceId, post.id))!;
  return status === 'cancelled'
    ? renderPost(ctx.db, ctx.workspaceId, updated, deps.media)
    : emitPost(deps, ctx, updated, ['post.cancelled']);
}
