// One run of the publish task on one target: claim it (a stale or duplicate job does nothing), record the
// attempt before any platform call, publish its parts exactly once (parts.ts), then settle — published,
// failed with a precise error, or released for a retry at a time the policy chose — and derive the post's
// status, with its events, in the same transaction.
//
// The logic is per target, but the database work of targets publishing at the same moment is shared: the
// claim, the part marks and the settlement each go through a batcher (src/lib/batcher.ts), so a burst of due
// posts costs a few statements per batch instead of some twenty-five per target. A batch is one transaction
// where the single-target path was one; a failure path (rare) still runs target by target.
import { withTransaction, type Pool, type PoolClient } from '../../db/pool.ts';
import { queuePublishJobs } from '../../app/publish-queue.ts';
import { batcher } from '../../lib/batcher.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Metrics } from '../../lib/metrics.ts';
import { isPlatformError, PlatformError, type PlatformSession, type PublishedPart } from '../../platforms/types.ts';
import { findConnections, throttle, type ConnectionRow } from '../connections/connections.repo.ts';
import { expireConnection, refreshConnection } from '../connections/lifecycle.ts';
import { sessionFor, type PlatformAccess } from '../connections/platform-access.ts';
import { lockPosts, type PostRow } from '../posts/posts.repo.ts';
import type { MediaLists } from '../posts/posts.view.ts';
import { MediaPreparing, type MediaLibrary } from './media-library.ts';
import { LostClaim, publishParts, type PartsStore } from './parts.ts';
import { partLabel, targetTexts } from './part-texts.ts';
import { decide, targetError } from './policy.ts';
import { refreshPostStatus, refreshPostStatuses } from './post-status.ts';
import * as partsRepo from './target-parts.repo.ts';
import * as batches from './targets.batches.repo.ts';
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
/**
 * Most targets sharing one statement: as many as a worker may run at once (HERALD_WORKER_CONCURRENCY's ceiling),
 * so every waiting target goes in the next batch; batches one after another would each pay their dozen round
 * trips again.
 */
const BATCH_MAX = 1000;

/** A claimed target with what publishing it needs, read once for its batch. */
interface Claim extends repo.ClaimedTarget {
  attemptId: string;
  post: PostRow | undefined;
  connection: ConnectionRow | undefined;
  parts: partsRepo.PartRow[];
}

/** The engine of one worker process: `publish` runs one job; concurrent jobs share their round trips. */
export interface Publisher {
  publish(job: PublishJob): Promise<PublishResult>;
}

export function createPublisher(deps: PublishDeps): Publisher {
  const options = { max: BATCH_MAX, parallel: 1 };
  const batches: Batches = {
    claim: batcher((jobs: PublishJob[]) => claimBatch(deps, jobs), options),
    markSending: batcher(async (parts: Array<partsRepo.PartWrite & { key: string }>) => {
      const marked = await partsRepo.markSending(deps.pool, parts);
      const byKey = new Map(marked.map((m) => [`${m.target_id}/${m.position}`, m]));
      return parts.map((p) => byKey.get(`${p.targetId}/${p.position}`));
    }, options),
    markPublished: batcher(async (parts: Array<partsRepo.PartWrite & { part: PublishedPart }>) => {
      const marks = await partsRepo.markPartsPublished(deps.pool, parts);
      return parts.map((p): partsRepo.PartMark => marks.get(`${p.targetId}/${p.position}`) ?? 'lost_claim');
    }, options),
    settle: batcher((items: Published[]) => settleBatch(deps, items), options),
  };
  return { publish: (job) => publishTarget(deps, batches, job) };
}

interface Published {
  claim: Claim;
  first: PublishedPart;
}

interface Batches {
  claim(job: PublishJob): Promise<Claim | 'deferred' | undefined>;
  markSending(part: partsRepo.PartWrite & { key: string }): Promise<partsRepo.PartRow | undefined>;
  markPublished(part: partsRepo.PartWrite & { part: PublishedPart }): Promise<partsRepo.PartMark>;
  settle(item: Published): Promise<boolean>;
}

/**
 * Claims a batch in one transaction: jobs whose connection the platform told to wait move to its reset
 * without taking an attempt; the others are claimed, their attempts recorded, their posts' statuses derived,
 * and the posts, connections and (for targets claimed before) parts that publishing them needs are read.
 */
async function claimBatch(deps: PublishDeps, jobs: PublishJob[]): Promise<Array<Claim | 'deferred' | undefined>> {
  // The reads are inside the transaction too: if one fails, no claim is left behind, and the batcher's retry of
  // each job alone starts from a clean slate.
  const { deferred, claims, posts, connections, parts } = await withTransaction(deps.pool, async (tx) => {
    // Targets wait without taking an attempt while their connection is throttled or their media are being fetched.
    const ids = jobs.map((j) => j.targetId);
    const throttled = new Map(
      [...(await batches.throttledTargets(tx, ids)), ...(await batches.targetsAwaitingMedia(tx, ids))].map((r) => [
        r.id,
        r.until,
      ]),
    );
    const waiting = jobs.filter((j) => throttled.has(j.targetId));
    for (const group of Map.groupBy(
      waiting,
      (j) => `${throttled.get(j.targetId)!.toISOString()} ${j.scheduleAt}`,
    ).values()) {
      const job = group[0]!;
      await queuePublishJobs(
        tx,
        group.map((j) => j.targetId),
        throttled.get(job.targetId)!,
        job.scheduleAt ? new Date(job.scheduleAt) : null,
      );
    }
    // Each job brings the id of the attempt its claim would open (the claim records it in the same statement).
    const claimed = await batches.claimTargets(
      tx,
      jobs.filter((j) => !throttled.has(j.targetId)).map((j) => ({ ...j, attemptId: newId('att') })),
    );
    const withAttempts = claimed.map(({ attempt_id: attemptId, ...c }) => ({ ...c, attemptId }));
    // The claim has locked these posts: this reads them, for the statuses and for publishing.
    const posts = await lockPosts(tx, [...new Set(claimed.map((c) => c.post_id))].sort());
    await refreshPostStatuses(
      tx,
      claimed.map((c) => ({ workspaceId: c.workspace_id, postId: c.post_id })),
      deps.postMedia,
      posts,
    );
    const connectionsOf = Map.groupBy(
      claimed.filter((c) => c.connection_id),
      (c) => c.workspace_id,
    );
    return {
      deferred: new Set(waiting.map((j) => j.jobId)),
      claims: withAttempts,
      posts,
      connections: (
        await Promise.all(
          [...connectionsOf].map(([workspaceId, of]) =>
            findConnections(tx, workspaceId, [...new Set(of.map((c) => c.connection_id!))]),
          ),
        )
      ).flat(),
      // A target claimed for the first time has no parts yet.
      parts: await partsRepo.findPartsOf(
        tx,
        claimed.filter((c) => !c.first_claim).map((c) => c.id),
      ),
    };
  });
  const post = new Map(posts.map((p) => [p.id, p]));
  const connection = new Map(connections.map((c) => [c.id, c]));
  const partsOf = Map.groupBy(parts, (p) => p.target_id);
  const byJob = new Map(
    claims.map(({ claimed_by: job, ...c }): [string, Claim] => [
      job,
      {
        ...c,
        post: post.get(c.post_id)?.workspace_id === c.workspace_id ? post.get(c.post_id) : undefined,
        connection: c.connection_id ? connection.get(c.connection_id) : undefined,
        parts: partsOf.get(c.id) ?? [],
      },
    ]),
  );
  return jobs.map((j) => (deferred.has(j.jobId) ? 'deferred' : byJob.get(j.jobId)));
}

/** Settles published targets in one transaction (posts locked first, in id order, as claims lock them). */
async function settleBatch(deps: PublishDeps, items: Published[]): Promise<boolean[]> {
  return withTransaction(deps.pool, async (tx) => {
    const locked = await lockPosts(tx, [...new Set(items.map((i) => i.claim.post_id))].sort());
    const held = await batches.settleTargets(
      tx,
      items.map(({ claim, first }) => ({
        workspaceId: claim.workspace_id,
        targetId: claim.id,
        token: claim.claim_token,
        status: 'published' as const,
        platformPostId: first.id,
        url: first.url,
        error: null,
      })),
    );
    const settled = items.filter((i) => held.has(i.claim.id));
    await batches.finishAttempts(
      tx,
      settled.map(({ claim }) => ({
        workspaceId: claim.workspace_id,
        attemptId: claim.attemptId,
        outcome: 'published' as const,
        errorCode: null,
        error: null,
      })),
    );
    // Settling targets changes no post row, so the rows locked above are still current.
    await refreshPostStatuses(
      tx,
      settled.map(({ claim }) => ({ workspaceId: claim.workspace_id, postId: claim.post_id })),
      deps.postMedia,
      locked,
    );
    return items.map((i) => held.has(i.claim.id));
  });
}

async function publishTarget(deps: PublishDeps, batches: Batches, job: PublishJob): Promise<PublishResult> {
  const claimed = await batches.claim(job);
  if (claimed === 'deferred') return 'deferred';
  if (!claimed) return 'not_claimed';
  const claim = claimed;
  if (claim.first_claim && claim.due_at) {
    deps.metrics.publishLateness.observe(
      { platform: claim.platform },
      Math.max(0, deps.clock.now().getTime() - claim.due_at.getTime()) / 1000,
    );
  }
  const started = performance.now();
  const log = deps.logger.child({
    target_id: claim.id,
    post_id: claim.post_id,
    platform: claim.platform,
    attempt: claim.attempt_count,
  });
  const { post, connection } = claim;
  try {
    if (!post || !connection || connection.status === 'disconnected')
      throw new PlatformError(
        'permanent',
        'PLATFORM_CONNECTION_UNAVAILABLE',
        'The connection of this target was removed or disconnected before the post went out.',
      );
    if (connection.status === 'expired')
      throw new PlatformError(
        'auth_expired',
        'PLATFORM_RECONNECT_REQUIRED',
        `The ${connection.platform} account ${connection.handle} must be reconnected.`,
      );
    const adapter = deps.access.registry.get(claim.platform);
    if (!adapter)
      throw new PlatformError('permanent', 'PLATFORM_REJECTED', `Herald cannot publish to ${claim.platform} yet.`);
    const refresh = () => refreshConnection(deps, connection);
    let session: PlatformSession = sessionFor(deps.access, connection);
    const expiresAt = session.credentials.expiresAt ? Date.parse(session.credentials.expiresAt) : undefined;
    if (expiresAt !== undefined && expiresAt - REFRESH_AHEAD_MS < deps.clock.now().getTime()) session = await refresh();
    const planned = targetTexts(post, claim.platform, adapter.limitsFor(session.connection));
    const fence = { workspaceId: claim.workspace_id, targetId: claim.id, token: claim.claim_token };
    const store: PartsStore = {
      rows: claim.parts,
      markSending: (position, key) => batches.markSending({ ...fence, position, key }),
      markPublished: (position, part) => batches.markPublished({ ...fence, position, part }),
      remember: (position, refs) => partsRepo.recordPendingRefs(deps.pool, { ...fence, position, refs }),
      discard: (position) => partsRepo.discardSendingPart(deps.pool, { ...fence, position }),
      heldElsewhere: (position, since) => partsRepo.platformIdsHeldElsewhere(deps.pool, { ...fence, position }, since),
      holderOf: (by) => partsRepo.postHolding(deps.pool, claim.workspace_id, claim.id, by),
    };
    const first = await publishParts({
      store,
      workspaceId: claim.workspace_id,
      adapter,
      session,
      refresh,
      media: deps.media,
      ...planned,
      now: () => deps.clock.now(),
    });
    if (!(await batches.settle({ claim, first }))) throw new LostClaim();
    record(deps, claim.platform, 'published', started);
    log.info({ platform_post_id: first.id }, 'target published');
    return 'published';
  } catch (error) {
    if (error instanceof LostClaim) {
      log.warn('claim lost to another worker; this attempt stops without writing');
      return 'lost_claim';
    }
    if (error instanceof MediaPreparing) return deferForMedia(deps, claim, error, log);
    if (!isPlatformError(error)) {
      // Not the platform's answer (a bug, the database): let the job fail and be retried by the queue. The claim
      // is this job's, and a failed job is no longer locked, so its next run may claim the target again.
      log.error({ err: error }, 'publish attempt failed unexpectedly');
      throw error;
    }
    return settleFailure(deps, claim, claim.attemptId, error, connection, started, log);
  }
}

/** The target's media variants are still being made: it comes back shortly, and this claim was not an attempt. */
async function deferForMedia(
  deps: PublishDeps,
  claim: Claim,
  waiting: MediaPreparing,
  log: Logger,
): Promise<PublishResult> {
  const at = new Date(deps.clock.now().getTime() + waiting.retryAfterMs);
  const deferred = await withTransaction(deps.pool, async (tx: PoolClient) => {
    await lockPosts(tx, [claim.post_id]); // the post before its target, as claims and post edits lock them
    if (!(await repo.deferTarget(tx, claim.workspace_id, claim.id, claim.claim_token, claim.attemptId, at)))
      return false;
    await queuePublishJobs(tx, [claim.id], at, null);
    return true;
  });
  if (!deferred) return 'lost_claim';
  log.info({ retry_at: at.toISOString() }, waiting.message);
  return 'deferred';
}

async function settleFailure(
  deps: PublishDeps,
  claim: repo.ClaimedTarget & { post?: PostRow },
  attemptId: string,
  error: PlatformError,
  connection: ConnectionRow | undefined,
  started: number,
  log: Logger,
): Promise<PublishResult> {
  const now = deps.clock.now();
  const decision = decide(error, claim.attempt_count, deps.maxAttempts, now);
  const body = targetError(error);
  // A thread that failed after its first part went out: say so, and keep the first part's id and URL on the target.
  const parts = await partsRepo.findParts(deps.pool, claim.workspace_id, claim.id);
  const first = parts.find((p) => p.position === 0 && p.state === 'published');
  if (first)
    body.message = `${partLabel(claim.post, claim.platform, parts.filter((p) => p.state === 'published').length)}: ${error.message} (the parts before it are published; a retry continues from here)`;
  const result = await withTransaction(deps.pool, async (tx: PoolClient) => {
    await lockPosts(tx, [claim.post_id]); // the post before its target, as claims and post edits lock them
    if (decision.action === 'retry') {
      if (!(await repo.releaseTarget(tx, claim.workspace_id, claim.id, claim.claim_token, decision.at, body)))
        return 'lost_claim' as const;
      if (decision.throttleConnection && connection) await throttle(tx, claim.workspace_id, connection.id, decision.at);
      await queuePublishJobs(tx, [claim.id], decision.at, null);
      await repo.finishAttempt(tx, claim.workspace_id, attemptId, {
        outcome: 'retry',
        errorCode: error.code,
        error: body,
      });
      return 'retry' as const;
    }
    if (
      !(await repo.settleTarget(tx, claim.workspace_id, claim.id, claim.claim_token, {
        status: 'failed',
        error: body,
        platformPostId: first?.platform_post_id ?? undefined,
        url: first?.url ?? undefined,
      }))
    )
      return 'lost_claim' as const;
    await repo.finishAttempt(tx, claim.workspace_id, attemptId, {
      outcome: 'failed',
      errorCode: error.code,
      error: body,
    });
    if (decision.reconnect && connection) await expireConnection(tx, claim.workspace_id, connection.id, error);
    await refreshPostStatus(tx, claim.workspace_id, claim.post_id, deps.postMedia);
    return 'failed' as const;
  });
  if (result !== 'lost_claim') record(deps, claim.platform, result, started, error.code);
  log[result === 'failed' ? 'warn' : 'info'](
    {
      code: error.code,
      kind: error.kind,
      retry_at: decision.action === 'retry' ? decision.at.toISOString() : undefined,
    },
    result === 'failed' ? 'target failed' : 'target will be retried',
  );
  return result;
}

function record(deps: PublishDeps, platform: string, outcome: string, started: number, code = ''): void {
  deps.metrics.publishAttempts.inc({ platform, outcome, code });
  deps.metrics.publishDuration.observe({ platform, outcome }, (performance.now() - started) / 1000);
}
