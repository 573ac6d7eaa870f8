// The metrics sync (docs/analytics.md "Sync"): one pass enrolls newly published targets, claims the targets
// due, reads their metrics through each connection's adapter — one connection's targets in turn, with one
// session and at most one token refresh — and stores each reading with its rollup row in one transaction. A rate
// limit defers all of that connection's targets until the platform's reset; a refused token marks the
// connection expired, and its targets wait until it is reconnected; a disconnected one's targets are retired.
import { withTransaction, type Pool } from '../../db/pool.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import { isPlatformError, type PlatformAdapter, type PlatformSession } from '../../platforms/types.ts';
import { findConnection, type ConnectionRow } from '../connections/connections.repo.ts';
import { expireConnection, REFRESH_AHEAD_MS, refreshConnection } from '../connections/lifecycle.ts';
import { sessionFor, type PlatformAccess } from '../connections/platform-access.ts';
import {
  CLAIM_LEASE_MS,
  EARLY_SYNC_AGES_MS,
  nextSyncAt,
  RATE_LIMIT_FALLBACK_MS,
  RETRY_AFTER_FAILURE_MS,
} from './schedule.ts';
import {
  claimDueTargets,
  deferConnection,
  enrollPublishedTargets,
  recordReading,
  rescheduleTargets,
  retireDisconnectedTargets,
  type DueTarget,
  type SyncError,
} from './snapshots.repo.ts';

export interface SyncDeps {
  pool: Pool;
  access: PlatformAccess;
  logger: Logger;
  clock: Clock;
  /** HERALD_ANALYTICS_SYNC_MAX_AGE_DAYS. */
  maxAgeDays: number;
  /** HERALD_ANALYTICS_SYNC_BATCH: targets claimed per pass. */
  batchSize: number;
}

/** What one pass did. */
export interface SyncTally {
  enrolled: number;
  synced: number;
  rateLimited: number;
  expired: number;
  failed: number;
}

/** Connections read at the same time in one pass (each connection's own targets go one after another). */
const CONNECTION_CONCURRENCY = 8;

/**
 * Runs one sync pass now: what the job does every minute. `now` overrides the clock (tests jump ahead to a
 * schedule point).
 */
export async function syncDueMetrics(deps: SyncDeps, opts: { now?: Date } = {}): Promise<SyncTally> {
  const now = opts.now ?? deps.clock.now();
  const tally: SyncTally = { enrolled: 0, synced: 0, rateLimited: 0, expired: 0, failed: 0 };
  tally.enrolled = await enrollPublishedTargets(deps.pool, {
    now,
    maxAgeDays: deps.maxAgeDays,
    firstAfterMs: EARLY_SYNC_AGES_MS[0]!,
    limit: deps.batchSize * 4,
  });
  await retireDisconnectedTargets(deps.pool, now);
  const due = await claimDueTargets(deps.pool, {
    now,
    leaseUntil: new Date(now.getTime() + CLAIM_LEASE_MS),
    limit: deps.batchSize,
  });
  const groups = new Map<string, DueTarget[]>();
  for (const target of due) {
    const list = groups.get(target.connection_id) ?? [];
    list.push(target);
    groups.set(target.connection_id, list);
  }
  const queue = [...groups.values()];
  const lanes = Array.from({ length: Math.min(CONNECTION_CONCURRENCY, queue.length) }, async () => {
    for (let group = queue.shift(); group; group = queue.shift()) await syncConnection(deps, group, now, tally);
  });
  await Promise.all(lanes);
  return tally;
}

function syncError(error: unknown, now: Date): SyncError {
  if (isPlatformError(error)) return { code: error.code, message: error.message, at: now.toISOString() };
  return {
    code: 'SYNC_FAILED',
    message: error instanceof Error ? error.message : String(error),
    at: now.toISOString(),
  };
}

async function syncConnection(deps: SyncDeps, targets: DueTarget[], now: Date, tally: SyncTally): Promise<void> {
  const first = targets[0]!;
  const log = deps.logger.child({ connection_id: first.connection_id, platform: first.platform });
  const connection = await findConnection(deps.pool, first.workspace_id, first.connection_id);
  const adapter = deps.access.registry.get(first.platform as PlatformName);
  if (!connection || connection.status !== 'active') {
    // Changed since the claim: due again at once, and the claim's filter holds them until it is active.
    await rescheduleTargets(
      deps.pool,
      targets.map((t) => t.target_id),
      now,
      { code: 'PLATFORM_CONNECTION_UNAVAILABLE', message: 'The connection is not active.', at: now.toISOString() },
    );
    return;
  }
  if (!adapter?.fetchMetrics) {
    // The platform gives no metrics to Herald: one reading records every metric unavailable, and no more.
    for (const target of targets) if (await store(deps, target, {}, now, null)) tally.synced++;
    return;
  }
  let session: PlatformSession;
  let refreshed = false;
  try {
    session = await openSession(deps, connection, now);
  } catch (error) {
    await settleFailure(deps, connection, targets, error, now, tally, log);
    return;
  }
  for (let i = 0; i < targets.length; i++) {
    const target = targets[i]!;
    try {
      const metrics = await read(adapter, session, target);
      if (await store(deps, target, metrics, now, nextSyncAt(target.published_at, now, deps.maxAgeDays)))
        tally.synced++;
    } catch (error) {
      if (isPlatformError(error) && error.kind === 'auth_expired' && !refreshed) {
        refreshed = true;
        try {
          session = await refreshConnection(deps, connection);
          i--; // the same target again, with the new token
          continue;
        } catch (refreshError) {
          await settleFailure(deps, connection, targets.slice(i), refreshError, now, tally, log);
          return;
        }
      }
      if (isPlatformError(error) && (error.kind === 'rate_limited' || error.kind === 'auth_expired')) {
        await settleFailure(deps, connection, targets.slice(i), error, now, tally, log);
        return;
      }
      // This post alone (deleted on the platform, a server error): try it again later, the others go on.
      const transient = !isPlatformError(error) || error.kind === 'transient' || error.kind === 'unknown_outcome';
      const retryAt = transient
        ? new Date(now.getTime() + RETRY_AFTER_FAILURE_MS)
        : nextSyncAt(target.published_at, now, deps.maxAgeDays);
      await rescheduleTargets(deps.pool, [target.target_id], retryAt, syncError(error, now));
      tally.failed++;
      log.warn({ target_id: target.target_id, err: syncError(error, now) }, 'metrics reading failed');
    }
  }
}

async function openSession(deps: SyncDeps, connection: ConnectionRow, now: Date): Promise<PlatformSession> {
  const session = sessionFor(deps.access, connection);
  const expiresAt = session.credentials.expiresAt ? Date.parse(session.credentials.expiresAt) : undefined;
  if (expiresAt !== undefined && expiresAt - REFRESH_AHEAD_MS < now.getTime())
    return refreshConnection(deps, connection);
  return session;
}

function read(adapter: PlatformAdapter, session: PlatformSession, target: DueTarget) {
  return adapter.fetchMetrics!(session, {
    id: target.platform_post_id,
    url: target.url ?? '',
    ...(target.ref ? { ref: target.ref } : {}),
  });
}

function store(deps: SyncDeps, target: DueTarget, metrics: Record<string, number>, now: Date, next: Date | null) {
  return withTransaction(deps.pool, (tx) => recordReading(tx, { target, metrics, capturedAt: now, nextSyncAt: next }));
}

/**
 * A failure that concerns the whole connection. A rate limit: these targets and every other target of the
 * connection due before the reset wait until it. A refused token: the connection is marked expired (with
 * `connection.expired`), and its targets stay due, held back by the claim until it is reconnected. Anything else
 * (the refresh call failing on a network error): these targets are tried again later.
 */
async function settleFailure(
  deps: SyncDeps,
  connection: ConnectionRow,
  targets: DueTarget[],
  error: unknown,
  now: Date,
  tally: SyncTally,
  log: Logger,
): Promise<void> {
  const ids = targets.map((t) => t.target_id);
  const recorded = syncError(error, now);
  if (isPlatformError(error) && error.kind === 'rate_limited') {
    const until = new Date(now.getTime() + (error.retryAfterMs ?? RATE_LIMIT_FALLBACK_MS));
    await rescheduleTargets(deps.pool, ids, until, recorded);
    await deferConnection(deps.pool, connection.id, until, recorded);
    tally.rateLimited += ids.length;
    log.info({ until: until.toISOString(), deferred: ids.length }, 'metrics sync rate-limited: connection deferred');
    return;
  }
  if (isPlatformError(error) && error.kind === 'auth_expired') {
    await withTransaction(deps.pool, async (tx) => {
      await expireConnection(tx, connection.workspace_id, connection.id, error);
      await rescheduleTargets(tx, ids, now, recorded);
    });
    tally.expired += ids.length;
    log.warn({ code: error.code }, 'metrics sync stopped: the connection must be reconnected');
    return;
  }
  await rescheduleTargets(deps.pool, ids, new Date(now.getTime() + RETRY_AFTER_FAILURE_MS), recorded);
  tally.failed += ids.length;
  log.warn({ err: recorded }, 'metrics sync of a connection failed');
}
