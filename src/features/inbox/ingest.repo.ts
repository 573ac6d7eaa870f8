// The SQL of the ingestion (docs/inbox.md "Ingestion"): the per connection and stream sources (cursor, schedule,
// health) and the insertion of ingested items, once each: (connection_id, platform_item_id) is unique and a page
// is one INSERT … ON CONFLICT DO NOTHING that returns only the rows it created.
import type { Queryable } from '../../db/pool.ts';
import { newId } from '../../lib/ids.ts';
import type { PlatformInboxItem } from '../../platforms/types.ts';
import { ITEM_COLUMNS } from './inbox.repo.ts';
import type { InboxItemRow, InboxSourceRow, InboxStream } from './inbox.types.ts';

const SOURCE_COLUMNS = `connection_id AS "connectionId", workspace_id AS "workspaceId", stream, cursor,
  next_poll_at AS "nextPollAt", backoff_seconds AS "backoffSeconds", last_polled_at AS "lastPolledAt",
  last_ok_at AS "lastOkAt", last_error AS "lastError", consecutive_failures AS "consecutiveFailures",
  items_ingested::float8 AS "itemsIngested"`;

/** Adds the missing sources of the active connections of `platform` (one per stream the adapter reads), due `now`. */
export async function enrollSources(
  db: Queryable,
  platform: string,
  streams: readonly InboxStream[],
  now: Date,
): Promise<number> {
  // Due at the pass's own time, so the pass that enrolls a source polls it.
  const { rowCount } = await db.query(
    `INSERT INTO inbox_sources (connection_id, workspace_id, stream, next_poll_at)
     SELECT c.id, c.workspace_id, s.stream, $3 FROM connections c CROSS JOIN unnest($2::text[]) AS s (stream)
      WHERE c.platform = $1 AND c.status = 'active'
     ON CONFLICT (connection_id, stream) DO NOTHING`,
    [platform, streams, now],
  );
  return rowCount ?? 0;
}

/**
 * Claims due sources of active connections: their next poll is pushed `leaseMs` ahead, so another pass skips them
 * and a pass that dies leaves them due again when the lease ends.
 */
export async function claimDueSources(
  db: Queryable,
  input: { now: Date; leaseUntil: Date; limit: number },
): Promise<InboxSourceRow[]> {
  const { rows } = await db.query<InboxSourceRow>(
    `UPDATE inbox_sources s SET next_poll_at = $2
      WHERE (s.connection_id, s.stream) IN (
        SELECT d.connection_id, d.stream FROM inbox_sources d JOIN connections c ON c.id = d.connection_id
         WHERE d.next_poll_at <= $1 AND c.status = 'active'
         ORDER BY d.next_poll_at LIMIT $3 FOR UPDATE OF d SKIP LOCKED)
     RETURNING ${SOURCE_COLUMNS}`,
    [input.now, input.leaseUntil, input.limit],
  );
  return rows;
}

/** One connection's sources (its GET shows their health). */
export async function sourcesOf(db: Queryable, workspaceId: string, connectionId: string): Promise<InboxSourceRow[]> {
  const { rows } = await db.query<InboxSourceRow>(
    `SELECT ${SOURCE_COLUMNS} FROM inbox_sources WHERE workspace_id = $1 AND connection_id = $2 ORDER BY stream`,
    [workspaceId, connectionId],
  );
  return rows;
}

export interface IngestTarget {
  workspaceId: string;
  connectionId: string;
  brandId: string;
  platform: string;
}

/**
 * Inserts a page of items; returns the rows created (an item already held creates nothing). Each is linked to the
 * Herald post whose published part on this connection has the item's platform post id.
 */
export async function insertItems(
  db: Queryable,
  target: IngestTarget,
  items: readonly (PlatformInboxItem & { replyWindowEndsAt: string | null })[],
  now: Date,
): Promise<InboxItemRow[]> {
  if (items.length === 0) return [];
  const rows = items.map((it) => ({
    id: newId('inb', now.getTime()),
    kind: it.kind,
    platform_post_id: it.postId,
    thread_id: it.threadId,
    parent_id: it.parentId,
    platform_item_id: it.id,
    author: {
      platform_user_id: it.author.id,
      username: it.author.username,
      display_name: it.author.displayName,
      avatar_url: it.author.avatarUrl,
    },
    text: it.text,
    permalink: it.url,
    received_at: it.createdAt,
    reply_window_ends_at: it.replyWindowEndsAt,
    from_account: it.fromAccount,
    platform_ref: it.ref ?? null,
  }));
  const { rows: created } = await db.query<InboxItemRow>(
    `WITH page AS (
       SELECT * FROM jsonb_to_recordset($5::jsonb) AS r (
         id text, kind text, platform_post_id text, thread_id text, parent_id text, platform_item_id text,
         author jsonb, text text, permalink text, received_at timestamptz, reply_window_ends_at timestamptz,
         from_account boolean, platform_ref jsonb)
     )
     INSERT INTO inbox_items AS i (id, workspace_id, connection_id, brand_id, platform, kind, post_id, platform_post_id,
       thread_id, parent_id, platform_item_id, author, text, permalink, received_at, reply_window_ends_at,
       from_account, platform_ref, status)
     SELECT p.id, $1, $2, $3, $4, p.kind,
            (SELECT t.post_id FROM target_parts tp JOIN post_targets t ON t.id = tp.target_id
              WHERE tp.connection_id = $2 AND tp.platform_post_id = p.platform_post_id LIMIT 1),
            p.platform_post_id, p.thread_id, p.parent_id, p.platform_item_id, p.author, coalesce(p.text, ''),
            p.permalink, p.received_at, p.reply_window_ends_at, coalesce(p.from_account, false),
            p.platform_ref,
            CASE WHEN coalesce(p.from_account, false) THEN 'resolved' ELSE 'open' END
       FROM page p
     ON CONFLICT (connection_id, platform_item_id) DO NOTHING
     RETURNING ${ITEM_COLUMNS}`,
    [target.workspaceId, target.connectionId, target.brandId, target.platform, JSON.stringify(rows)],
  );
  return created;
}

/** After a page: the cursor it ends at and the count of items it created. */
export async function advanceSource(
  db: Queryable,
  source: Pick<InboxSourceRow, 'connectionId' | 'stream'>,
  cursor: Record<string, unknown> | null,
  created: number,
): Promise<void> {
  await db.query(
    `UPDATE inbox_sources SET cursor = $3, items_ingested = items_ingested + $4
      WHERE connection_id = $1 AND stream = $2`,
    [source.connectionId, source.stream, cursor === null ? null : JSON.stringify(cursor), created],
  );
}

/** A poll that ended well: healthy again, next poll after the interval. */
export async function recordSuccess(
  db: Queryable,
  source: Pick<InboxSourceRow, 'connectionId' | 'stream'>,
  now: Date,
  nextPollAt: Date,
): Promise<void> {
  await db.query(
    `UPDATE inbox_sources SET last_polled_at = $3, last_ok_at = $3, next_poll_at = $4, backoff_seconds = 0,
            consecutive_failures = 0, last_error = NULL
      WHERE connection_id = $1 AND stream = $2`,
    [source.connectionId, source.stream, now, nextPollAt],
  );
}

/** A poll that failed: one more consecutive failure, the error, and the back-off before the next poll. */
export async function recordFailure(
  db: Queryable,
  source: Pick<InboxSourceRow, 'connectionId' | 'stream'>,
  now: Date,
  backoffSeconds: number,
  error: { code: string; message: string; at: string },
): Promise<void> {
  await db.query(
    `UPDATE inbox_sources SET last_polled_at = $3, next_poll_at = $3::timestamptz + make_interval(secs => $4),
            backoff_seconds = $4, consecutive_failures = consecutive_failures + 1, last_error = $5
      WHERE connection_id = $1 AND stream = $2`,
    [source.connectionId, source.stream, now, backoffSeconds, JSON.stringify(error)],
  );
}
