// One run of the publish task on one target: claim it (a stale or duplicate job does nothing), record the
// attempt before any platform call, publish its parts exactly once (parts.ts), then settle — published,
// failed with a precise error, or released for a retry at a time the policy chose — and derive the post's
// status, with its events, in the same transaction.
import { withTransaction, type Pool, type PoolClient } from '../../db/pool.ts';
import { queuePublishJobs } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Metrics } from '../../lib/metrics.ts';
import { isPlatformError, PlatformError, type PlatformSession } from '../../platforms/types.ts';
import { findConnection, throttle, type ConnectionRow } from '../connections/connections.repo.ts';
import { expireConnection, refreshConnection } from '../connections/lifecycle.ts';
import { sessionFor, type PlatformAccess } from '../connections/platform-access.ts';
import type { MediaLists } from '../posts/posts.view.ts';
import type { MediaLibrary } from './media-library.ts';
import { LostClaim, publishParts } from './parts.ts';
import { decide, targetError } from './policy.ts';
import { refreshPostStatus } from './post-status.ts';
import * as repo from './targets.repo.ts';

export interface PublishDeps {
  pool: Pool;
  access: PlatformAccess;
  media: MediaLibrary;
  /** Renders a post's `media` list in the events the engine appends (the media feature). */
  postMedia: MediaLists;
  metrics: Metrics;
  logger: Logger;
  clock: Clock;
  maxAttempts: number;
}

export interface PublishJob {
  targetId: string;
  scheduleAt: string | null;
  jobId: string;
  workerId: string;
}

export type PublishResult = 'not_claimed' | 'deferred' | 'published' | 'failed' | 'retry' | 'lost_claim';

/** Refresh tokens ahead of expiry by this much, so a call does not start with a token about to lapse. */
const REFRESH_AHEAD_MS = 60_000;

export async function publishTarget(deps: PublishDeps, job: PublishJob): Promise<PublishResult> {
  const attemptId = newId('att');
  const claimed = await withTransaction(deps.pool, async (tx) => {
    // A connection the platform told to wait: move the job to the reset without taking an attempt.
    const { rows } = await tx.query<{ until: Date }>(
      `SELECT c.throttled_until AS until FROM post_targets t JOIN connections c ON c.id = t.connection_id
        WHERE t.id = $1 AND c.throttled_until > now()`, [job.targetId]);
    if (rows[0]) {
      await queuePublishJobs(tx, [job.targetId], rows[0].until, job.scheduleAt ? new Date(job.scheduleAt) : null);
      return 'deferred' as const;
    }
    const claim = await repo.claimTarget(tx, job.targetId, job.scheduleAt, job.jobId);
    if (!claim) return undefined;
    if (claim.taken_over) await repo.closeInterruptedAttempts(tx, claim.workspace_id, claim.id);
    await repo.insertAttempt(tx, claim.workspace_id, attemptId, claim.id, job.workerId);
    await refreshPostStatus(tx, claim.workspace_id, claim.post_id, deps.postMedia);
    return claim;
  });
  if (claimed === 'deferred') return 'deferred';
  if (!claimed) return 'not_claimed';
  const claim = claimed;
  if (claim.first_claim && claim.due_at) {
    deps.metrics.publishLateness.observe({ platform: claim.platform }, Math.max(0, deps.clock.now().getTime() - claim.due_at.getTime()) / 1000);
  }
  const started = performance.now();
  const log = deps.logger.child({ target_id: claim.id, post_id: claim.post_id, platform: claim.platform, attempt: claim.attempt_count });
  let connection: ConnectionRow | undefined;
  try {
    const post = await repo.findPostForPublishing(deps.pool, claim.workspace_id, claim.post_id);
    connection = claim.connection_id ? await findConnection(deps.pool, claim.workspace_id, claim.connection_id) : undefined;
    if (!post || !connection || connection.status === 'disconnected') throw new PlatformError('permanent', 'PLATFORM_CONNECTION_UNAVAILABLE', 'The connection of this target was removed or disconnected before the post went out.');
    if (connection.status === 'expired') throw new PlatformError('auth_expired', 'PLATFORM_RECONNECT_REQUIRED', `The ${connection.platform} account ${connection.handle} must be reconnected.`);
    const adapter = deps.access.registry.get(claim.platform);
    if (!adapter) throw new PlatformError('permanent', 'PLATFORM_REJECTED', `Herald cannot publish to ${claim.platform} yet.`);
    const conn = connection;
    const refresh = () => refreshConnection(deps, conn);
    let session: PlatformSession = sessionFor(deps.access, conn);
    const expiresAt = session.credentials.expiresAt ? Date.parse(session.credentials.expiresAt) : undefined;
    if (expiresAt !== undefined && expiresAt - REFRESH_AHEAD_MS < deps.clock.now().getTime()) session = await refresh();
    const options = post.platform_options[claim.platform] ?? {};
    const { content, thread, alt_texts: altTexts, ...rest } = options as { content?: string; thread?: string[]; alt_texts?: string[] };
    const first = await publishParts({
      pool: deps.pool, workspaceId: claim.workspace_id, targetId: claim.id, claimToken: claim.claim_token, adapter, session, refresh,
      media: deps.media, mediaIds: post.media_ids, altTexts: altTexts ?? [], texts: [content ?? post.content, ...(thread ?? [])], options: rest, now: () => deps.clock.now(),
    });
    const settled = await withTransaction(deps.pool, async (tx) => {
      if (!(await repo.settleTarget(tx, claim.workspace_id, claim.id, claim.claim_token, { status: 'published', platformPostId: first.id, url: first.url, error: null }))) return false;
      await repo.finishAttempt(tx, claim.workspace_id, attemptId, { outcome: 'published', errorCode: null, error: null });
      await refreshPostStatus(tx, claim.workspace_id, claim.post_id, deps.postMedia);
      return true;
    });
    if (!settled) throw new LostClaim();
    record(deps, claim.platform, 'published', started);
    log.info({ platform_post_id: first.id }, 'target published');
    return 'published';
  } catch (error) {
    if (error instanceof LostClaim) {
      log.warn('claim lost to another worker; this attempt stops without writing');
      return 'lost_claim';
    }
    if (!isPlatformError(error)) {
      // Not the platform's answer (a bug, the database): let the job fail and be retried by the queue. The claim
      // is this job's, and a failed job is no longer locked, so its next run may claim the target again.
      log.error({ err: error }, 'publish attempt failed unexpectedly');
      throw error;
    }
    return settleFailure(deps, claim, attemptId, error, connection, started, log);
  }
}

async function settleFailure(deps: PublishDeps, claim: repo.ClaimedTarget, attemptId: string, error: PlatformError, connection: ConnectionRow | undefined, started: number, log: Logger): Promise<PublishResult> {
  const now = deps.clock.now();
  const decision = decide(error, claim.attempt_count, deps.maxAttempts, now);
  const body = targetError(error);
  // A thread that failed after its first part went out: say so, and keep the first part's id and URL on the target.
  const parts = await repo.findParts(deps.pool, claim.workspace_id, claim.id);
  const first = parts.find((p) => p.position === 0 && p.state === 'published');
  if (first) body.message = `Part ${parts.filter((p) => p.state === 'published').length + 1} of the thread: ${error.message} (the parts before it are published; a retry continues from here)`;
  const result = await withTransaction(deps.pool, async (tx: PoolClient) => {
    if (decision.action === 'retry') {
      if (!(await repo.releaseTarget(tx, claim.workspace_id, claim.id, claim.claim_token, decision.at, body))) return 'lost_claim' as const;
      if (decision.throttleConnection && connection) await throttle(tx, claim.workspace_id, connection.id, decision.at);
      await queuePublishJobs(tx, [claim.id], decision.at, null);
      await repo.finishAttempt(tx, claim.workspace_id, attemptId, { outcome: 'retry', errorCode: error.code, error: body });
      return 'retry' as const;
    }
    if (!(await repo.settleTarget(tx, claim.workspace_id, claim.id, claim.claim_token, { status: 'failed', error: body, platformPostId: first?.platform_post_id ?? undefined, url: first?.url ?? undefined }))) return 'lost_claim' as const;
    await repo.finishAttempt(tx, claim.workspace_id, attemptId, { outcome: 'failed', errorCode: error.code, error: body });
    if (decision.reconnect && connection) await expireConnection(tx, claim.workspace_id, connection.id, error);
    await refreshPostStatus(tx, claim.workspace_id, claim.post_id, deps.postMedia);
    return 'failed' as const;
  });
  if (result !== 'lost_claim') record(deps, claim.platform, result, started);
  log[result === 'failed' ? 'warn' : 'info']({ code: error.code, kind: error.kind, retry_at: decision.action === 'retry' ? decision.at.toISOString() : undefined }, result === 'failed' ? 'target failed' : 'target will be retried');
  return result;
}

function record(deps: PublishDeps, platform: string, outcome: string, started: number): void {
  deps.metrics.publishAttempts.inc({ platform, outcome });
  deps.metrics.publishDuration.observe({ platform, outcome }, (performance.now() - started) / 1000);
}
