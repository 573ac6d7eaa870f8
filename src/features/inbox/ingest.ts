// The inbox ingestion (docs/inbox.md "Ingestion"): one pass enrolls a source per active connection and stream its
// adapter reads, claims the due sources, and polls each through the connection's adapter — a connection's streams
// one after another with one session and at most one token refresh. Each page is one transaction: the items
// inserted (ON CONFLICT DO NOTHING: ingesting twice creates nothing, restarts included), the cursor advanced, and
// afterIngest (src/features/inbox/after-ingest.ts) given the rows created. A rate limit defers the source until
// the platform's reset (Retry-After); any failure counts in the source's health and backs the source off.
import { withTransaction, type Pool } from '../../db/pool.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import type { PlatformName } from '../../platforms/limits.ts';
import {
  isPlatformError,
  type PlatformAdapter,
  type PlatformInboxItem,
  type PlatformSession,
} from '../../platforms/types.ts';
import { findConnection, type ConnectionRow } from '../connections/connections.repo.ts';
import { expireConnection, REFRESH_AHEAD_MS, refreshConnection } from '../connections/lifecycle.ts';
import { sessionFor, type PlatformAccess } from '../connections/platform-access.ts';
import { afterIngest } from './after-ingest.ts';
import type { InboxSourceRow } from './inbox.types.ts';
import {
  advanceSource,
  claimDueSources,
  enrollSources,
  insertItems,
  recordFailure,
  recordSuccess,
} from './ingest.repo.ts';

export interface IngestDeps {
  pool: Pool;
  access: PlatformAccess;
  logger: Logger;
  clock: Clock;
  /** HERALD_INBOX_POLL_SECONDS: between two polls of a healthy source. */
  pollSeconds: number;
  /** HERALD_INBOX_POLL_BATCH: sources claimed per pass. */
  batchSize: number;
  /** HERALD_INBOX_MAX_PAGES: pages read from one source in one poll (the rest waits for the next). */
  maxPages: number;
}

export interface IngestTally {
  polled: number;
  created: number;
  rateLimited: number;
  failed: number;
}

/** How long a claimed source is held by its pass. */
const CLAIM_LEASE_MS = 5 * 60_000;
/** The longest back-off, and the wait after a rate limit whose answer named no reset. */
const MAX_BACKOFF_SECONDS = 3600;
const RATE_LIMIT_FALLBACK_SECONDS = 60;
/** Connections polled at the same time in one pass. */
const CONNECTION_CONCURRENCY = 8;
/** Platforms whose direct messages may be answered for 24 hours after the person's last message (Meta). */
const DM_WINDOW_MS: Partial<Record<PlatformName, number>> = { facebook: 86_400_000, instagram: 86_400_000 };

/** The back-off after `failures` consecutive failures (the first included): doubling from the interval. */
export function backoffSeconds(pollSeconds: number, failures: number, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined) return Math.min(MAX_BACKOFF_SECONDS, Math.max(1, Math.ceil(retryAfterMs / 1000)));
  const base = Math.max(pollSeconds, RATE_LIMIT_FALLBACK_SECONDS);
  return Math.min(MAX_BACKOFF_SECONDS, base * 2 ** Math.min(10, Math.max(0, failures - 1)));
}

/** Runs one ingestion pass now: what the job does every minute. */
export async function ingestDue(deps: IngestDeps, opts: { now?: Date } = {}): Promise<IngestTally> {
  const now = opts.now ?? deps.clock.now();
  const tally: IngestTally = { polled: 0, created: 0, rateLimited: 0, failed: 0 };
  for (const platform of deps.access.registry.available()) {
    const inbox = deps.access.registry.get(platform)?.inbox;
    if (inbox) await enrollSources(deps.pool, platform, inbox.streams, now);
  }
  const due = await claimDueSources(deps.pool, {
    now,
    leaseUntil: new Date(now.getTime() + CLAIM_LEASE_MS),
    limit: deps.batchSize,
  });
  const groups = new Map<string, InboxSourceRow[]>();
  for (const source of due) groups.set(source.connectionId, [...(groups.get(source.connectionId) ?? []), source]);
  const queue = [...groups.values()];
  const lanes = Array.from({ length: Math.min(CONNECTION_CONCURRENCY, queue.length) }, async () => {
    for (let group = queue.shift(); group; group = queue.shift()) await pollConnection(deps, group, now, tally);
  });
  await Promise.all(lanes);
  return tally;
}

function errorOf(error: unknown, now: Date): { code: string; message: string; at: string } {
  if (isPlatformError(error)) return { code: error.code, message: error.message, at: now.toISOString() };
  return {
    code: 'INGEST_FAILED',
    message: error instanceof Error ? error.message : String(error),
    at: now.toISOString(),
  };
}

async function openSession(deps: IngestDeps, connection: ConnectionRow, now: Date): Promise<PlatformSession> {
  const session = sessionFor(deps.access, connection);
  const expiresAt = session.credentials.expiresAt ? Date.parse(session.credentials.expiresAt) : undefined;
  if (expiresAt !== undefined && expiresAt - REFRESH_AHEAD_MS < now.getTime())
    return refreshConnection(deps, connection);
  return session;
}

async function pollConnection(deps: IngestDeps, sources: InboxSourceRow[], now: Date, tally: IngestTally) {
  const first = sources[0]!;
  const connection = await findConnection(deps.pool, first.workspaceId, first.connectionId);
  const adapter = connection ? deps.access.registry.get(connection.platform) : undefined;
  if (!connection || connection.status !== 'active' || !adapter?.inbox) return;
  const log = deps.logger.child({ connection_id: connection.id, platform: connection.platform });
  let session: PlatformSession;
  try {
    session = await openSession(deps, connection, now);
  } catch (error) {
    for (const source of sources) await fail(deps, connection, source, error, now, tally, log);
    return;
  }
  let refreshed = false;
  for (const source of sources) {
    for (;;) {
      try {
        // Read before adding: `tally.created += await …` would add to the value seen before the wait, and the
        // connections polled at the same time would overwrite each other's counts.
        const created = await pollSource(deps, adapter, session, connection, source, now);
        tally.created += created;
        tally.polled++;
        await recordSuccess(deps.pool, source, now, new Date(now.getTime() + deps.pollSeconds * 1000));
      } catch (error) {
        if (isPlatformError(error) && error.kind === 'auth_expired' && !refreshed) {
          refreshed = true;
          try {
            session = await refreshConnection(deps, connection);
            continue; // the same source again, with the new token
          } catch (refreshError) {
            await fail(deps, connection, source, refreshError, now, tally, log);
            break;
          }
        }
        await fail(deps, connection, source, error, now, tally, log);
      }
      break;
    }
  }
}

/**
 * Reads up to `maxPages` pages of one source; returns the number of items created. The next page is requested
 * while the current one is written: its cursor is known from the answer, and a page read but never written (the
 * transaction failed) is read again from the stored cursor at the next poll, so nothing is lost or doubled.
 */
async function pollSource(
  deps: IngestDeps,
  adapter: PlatformAdapter,
  session: PlatformSession,
  connection: ConnectionRow,
  source: InboxSourceRow,
  now: Date,
): Promise<number> {
  const read = (cursor: Record<string, unknown> | null) => adapter.inbox!.list(session, source.stream, cursor);
  let pending = read(source.cursor);
  let created = 0;
  for (let page = 1; ; page++) {
    const answer = await pending;
    const next = answer.more && page < deps.maxPages ? read(answer.cursor) : undefined;
    // Handled here so a failed write leaves no unhandled rejection; awaiting `next` still throws its error.
    next?.catch(() => undefined);
    const items = answer.items.map((item) => ({ ...item, replyWindowEndsAt: windowOf(connection.platform, item) }));
    created += await withTransaction(deps.pool, async (tx) => {
      const rows = await insertItems(
        tx,
        {
          workspaceId: connection.workspace_id,
          connectionId: connection.id,
          brandId: connection.brand_id,
          platform: connection.platform,
        },
        items,
        now,
      );
      await advanceSource(tx, source, answer.cursor, rows.length);
      if (rows.length > 0) await afterIngest({ db: tx, clock: deps.clock }, rows);
      return rows.length;
    });
    if (!next) return created;
    pending = next;
  }
}

/** Until when an answer is accepted: the adapter's word, else the platform's rule for its DMs, else no window. */
export function windowOf(platform: PlatformName, item: PlatformInboxItem): string | null {
  if (item.replyWindowEndsAt !== undefined) return item.replyWindowEndsAt;
  const window = item.kind === 'dm' ? DM_WINDOW_MS[platform] : undefined;
  return window === undefined ? null : new Date(Date.parse(item.createdAt) + window).toISOString();
}

async function fail(
  deps: IngestDeps,
  connection: ConnectionRow,
  source: InboxSourceRow,
  error: unknown,
  now: Date,
  tally: IngestTally,
  log: Logger,
): Promise<void> {
  const recorded = errorOf(error, now);
  const failures = source.consecutiveFailures + 1;
  if (isPlatformError(error) && error.kind === 'rate_limited') {
    tally.rateLimited++;
    await recordFailure(
      deps.pool,
      source,
      now,
      backoffSeconds(deps.pollSeconds, failures, error.retryAfterMs ?? RATE_LIMIT_FALLBACK_SECONDS * 1000),
      recorded,
    );
    return;
  }
  tally.failed++;
  if (isPlatformError(error) && error.kind === 'auth_expired')
    await expireConnection(deps.pool, connection.workspace_id, connection.id, error);
  await recordFailure(deps.pool, source, now, backoffSeconds(deps.pollSeconds, failures), recorded);
  log.warn({ stream: source.stream, err: recorded }, 'inbox poll failed');
}
