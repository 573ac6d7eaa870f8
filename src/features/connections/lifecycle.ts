// The life of a connection's tokens after it is made: refreshed under the connection's row lock (one refresh
// however many callers ask at once, so a rotating refresh token is spent exactly once), stored atomically with
// the refresh token kept when the platform sends none, refreshed ahead of expiry by a job, marked `expired`
// (with `connection.expired`) when the platform refuses, and disconnected (revoked where the platform can).
import { setTimeout as sleep } from 'node:timers/promises';
import { isDatabaseUnavailable, withTransaction, type Pool, type Queryable } from '../../db/pool.ts';
import { removePublishJobs } from '../../app/publish-queue.ts';
import type { Logger } from '../../lib/logger.ts';
import { isPlatformError, PlatformError, type Credentials, type PlatformSession } from '../../platforms/types.ts';
import { appendEvent } from '../events/outbox.ts';
import { failScheduledTargets, scheduledTargetsOfConnection } from '../publishing/targets.repo.ts';
import {
  findConnection,
  findExpiringConnections,
  findSealedCredentials,
  markExpired,
  resealCredentialsOf,
  updateCredentials,
  updateCredentialsIfUnchanged,
  type ConnectionRow,
} from './connections.repo.ts';
import { connectionJson } from './connections.service.ts';
import { openCredentials, sealCredentials, sessionFor, type PlatformAccess } from './platform-access.ts';

export interface LifecycleDeps {
  pool: Pool;
  access: PlatformAccess;
  logger: Logger;
}

/**
 * What to store after a refresh: the new tokens, but never an empty refresh token over a good one (a platform
 * that does not rotate may omit it), and the app password kept (Bluesky re-creates sessions from it).
 */
export function mergeCredentials(previous: Credentials, fresh: Credentials): Credentials {
  return {
    ...previous,
    ...fresh,
    refreshToken: fresh.refreshToken ? fresh.refreshToken : (previous.refreshToken ?? null),
    appPassword: fresh.appPassword ? fresh.appPassword : (previous.appPassword ?? null),
  };
}

/**
 * New credentials for a connection, refreshed at most once however many callers ask at the same moment: under
 * the connection's row lock, a caller that finds the credentials already changed since it read them uses those
 * (X refresh tokens work once, so two refreshes would log the account out). The platform call and the write
 * happen inside the lock, so the stored refresh token is always the newest one issued.
 *
 * The ordering rule (docs/architecture.md "Token refresh"): the platform's answer is stored and committed before
 * anything uses it — the session is returned only after the commit, and nothing but the store runs between the
 * answer and the commit. A restart after the commit finds the new pair; one before the platform answered finds
 * the old pair unspent. If the store itself fails (the database connection dropped while the platform answered),
 * the pair is stored again on a fresh connection rather than dropped while this process lives.
 */
export async function refreshConnection(
  deps: Pick<LifecycleDeps, 'pool' | 'access'>,
  used: ConnectionRow,
): Promise<PlatformSession> {
  // Set once the platform answered: from then on the old refresh token may be spent, and this pair is the only one.
  let answered: AnsweredRefresh | undefined;
  try {
    return await withTransaction(deps.pool, async (tx) => {
      const row = await findConnection(tx, used.workspace_id, used.id, true);
      if (!row || row.status === 'disconnected')
        throw new PlatformError('permanent', 'PLATFORM_CONNECTION_UNAVAILABLE', 'The connection was removed.');
      if (!row.credentials.equals(used.credentials)) return sessionFor(deps.access, row);
      const adapter = deps.access.registry.get(row.platform);
      if (!adapter)
        throw new PlatformError('permanent', 'PLATFORM_REJECTED', `Herald cannot reach ${row.platform} (no adapter).`);
      const session = sessionFor(deps.access, row);
      const credentials = mergeCredentials(session.credentials, await adapter.refreshCredentials(session));
      answered = {
        row,
        sealed: sealCredentials(deps.access.keyring, credentials),
        expiresAt: credentials.expiresAt ? new Date(credentials.expiresAt) : null,
      };
      await updateCredentials(tx, row.workspace_id, row.id, answered.sealed, answered.expiresAt);
      return sessionFor(deps.access, { ...row, credentials: answered.sealed });
    });
  } catch (error) {
    if (!answered) throw error;
    return storeAnsweredRefresh(deps, answered, error);
  }
}

/** A refresh the platform answered: the row it replaces and the new credentials, sealed. */
interface AnsweredRefresh {
  row: ConnectionRow;
  sealed: Buffer;
  expiresAt: Date | null;
}

/** Waits between tries to store an answered refresh while the database is away: about 30 s in all. */
const STORE_RETRY_MS = [250, 500, 1000, 2000, 4000, 8000, 15_000];

/**
 * The platform answered a refresh, but its transaction failed before or at the commit (which may even have taken
 * effect): the new pair is stored on a fresh connection, unless the row changed since it was locked, instead of
 * being dropped with the old refresh token already spent. Throws `failure` when it cannot be stored.
 */
async function storeAnsweredRefresh(
  deps: Pick<LifecycleDeps, 'pool' | 'access'>,
  answered: AnsweredRefresh,
  failure: unknown,
): Promise<PlatformSession> {
  const { row, sealed, expiresAt } = answered;
  for (let attempt = 0; ; attempt++) {
    try {
      const stored =
        (await updateCredentialsIfUnchanged(deps.pool, row.workspace_id, row.id, sealed, expiresAt, row.credentials)) ||
        (await findConnection(deps.pool, row.workspace_id, row.id))?.credentials.equals(sealed) === true;
      // Not stored: the connection was removed, or changed by someone else since (then theirs is the newer pair).
      if (!stored) throw failure;
      return sessionFor(deps.access, { ...row, credentials: sealed });
    } catch (error) {
      const wait = STORE_RETRY_MS[attempt];
      if (error === failure || wait === undefined || !isDatabaseUnavailable(error)) throw failure;
      await sleep(wait);
    }
  }
}

/** Marks the connection expired and emits `connection.expired`, once. */
export async function expireConnection(
  db: Queryable,
  workspaceId: string,
  id: string,
  error: PlatformError,
): Promise<void> {
  const changed = await markExpired(db, workspaceId, id, {
    code: error.code,
    message: error.message,
    platform_status: error.platformStatus ?? null,
  });
  if (!changed) return;
  const row = await findConnection(db, workspaceId, id);
  if (row) await appendEvent(db, workspaceId, 'connection.expired', connectionJson(row));
}

/**
 * Brings a connection's authorisation up to date on request (`POST /v1/connections/{id}/refresh`) or ahead of
 * expiry (the job): tokens that expire are refreshed; tokens that do not (Mastodon) are checked with the
 * platform. A refusal marks the connection expired; other failures leave it as it was and are thrown.
 */
export async function renewConnection(deps: LifecycleDeps, row: ConnectionRow): Promise<ConnectionRow> {
  const adapter = deps.access.registry.get(row.platform);
  if (!adapter)
    throw new PlatformError('permanent', 'PLATFORM_REJECTED', `Herald cannot reach ${row.platform} (no adapter).`);
  try {
    const credentials = openCredentials(deps.access.keyring, row.credentials);
    if (credentials.expiresAt || credentials.refreshToken) await refreshConnection(deps, row);
    else {
      await adapter.verifyAccount(sessionFor(deps.access, row));
      // The platform accepts the token again (an instance that refused it while down): usable again.
      if (row.status === 'expired')
        await updateCredentials(deps.pool, row.workspace_id, row.id, row.credentials, row.token_expires_at);
    }
  } catch (error) {
    if (isPlatformError(error) && error.kind === 'auth_expired') {
      await withTransaction(deps.pool, (tx) => expireConnection(tx, row.workspace_id, row.id, error));
      deps.logger.warn(
        { connection_id: row.id, platform: row.platform, code: error.code },
        'connection expired: the platform refused to renew it',
      );
    }
    throw error;
  }
  return (await findConnection(deps.pool, row.workspace_id, row.id))!;
}

/** How far ahead of expiry the job refreshes a token at the latest (the job runs every 5 minutes). */
export const REFRESH_AHEAD_MS = 15 * 60_000;

/**
 * The job: every active connection whose token expires within `aheadMs` is renewed, `parallel` at a time, in
 * batches until none is left or `budgetMs` is spent (the next run, 5 minutes later, goes on). Across workspaces
 * (like the publish sweeper). A connection that failed is not retried in the same run.
 */
export async function refreshExpiringConnections(
  deps: LifecycleDeps,
  now: Date,
  aheadMs = REFRESH_AHEAD_MS,
  o: { batch?: number; parallel?: number; budgetMs?: number } = {},
): Promise<{ renewed: number; expired: number; failed: number }> {
  const batch = o.batch ?? 100;
  const started = Date.now();
  const tally = { renewed: 0, expired: 0, failed: 0 };
  const seen: string[] = [];
  for (;;) {
    const rows = await findExpiringConnections(deps.pool, now, aheadMs, seen, batch);
    seen.push(...rows.map((r) => r.id));
    const queue = [...rows];
    const lane = async () => {
      for (let next = queue.shift(); next; next = queue.shift())
        await renewOne(deps, next.workspace_id, next.id, tally);
    };
    await Promise.all(Array.from({ length: o.parallel ?? 4 }, lane));
    if (rows.length < batch || Date.now() - started > (o.budgetMs ?? 4 * 60_000)) return tally;
  }
}

async function renewOne(
  deps: LifecycleDeps,
  workspaceId: string,
  id: string,
  tally: { renewed: number; expired: number; failed: number },
): Promise<void> {
  const row = await findConnection(deps.pool, workspaceId, id);
  if (!row || row.status !== 'active') return;
  try {
    await renewConnection(deps, row);
    tally.renewed++;
  } catch (error) {
    if (isPlatformError(error) && error.kind === 'auth_expired') tally.expired++;
    else {
      tally.failed++;
      deps.logger.warn(
        { connection_id: id, err: isPlatformError(error) ? { code: error.code, message: error.message } : error },
        'token refresh failed; the next run tries again',
      );
    }
  }
}

/** Fails scheduled targets of a connection being disconnected (`?force=true`), and removes their jobs. */
export async function failDependentTargets(
  db: Queryable,
  workspaceId: string,
  connectionId: string,
): Promise<string[]> {
  const targets = await scheduledTargetsOfConnection(db, workspaceId, connectionId);
  const error = {
    code: 'PLATFORM_CONNECTION_UNAVAILABLE',
    category: 'auth',
    message: 'The connection was disconnected before the post went out.',
    retryable: false,
    platform_status: null,
    platform_response: null,
  };
  await failScheduledTargets(
    db,
    workspaceId,
    targets.map((t) => t.id),
    error,
  );
  await removePublishJobs(
    db,
    targets.map((t) => t.id),
  );
  return [...new Set(targets.map((t) => t.post_id))];
}

/**
 * After a key rotation (HERALD_SECRET_KEY replaced, the old one in HERALD_SECRET_KEYS_PREVIOUS): seals every
 * connection's credentials again with the current key, so the previous key can then be dropped. Tokens that
 * refresh are re-sealed anyway at their next refresh; tokens that never expire (Mastodon) only here. A row whose
 * credentials changed meanwhile (a refresh) is left as the refresh wrote it.
 */
export async function resealCredentials(pool: Pool, access: Pick<PlatformAccess, 'keyring'>): Promise<number> {
  let resealed = 0;
  for (const r of await findSealedCredentials(pool)) {
    const sealed = sealCredentials(access.keyring, openCredentials(access.keyring, r.credentials));
    if (await resealCredentialsOf(pool, r.workspace_id, r.id, sealed, r.credentials)) resealed++;
  }
  return resealed;
}
