// The SQL of the inbox API (docs/inbox.md): reading `inbox_items` (written by the ingestion, ingest.ts), the
// triage fields a person changes (status, assignee, labels), and the tables of 0027_inbox.sql this feature owns:
// drafts, responses and thread take-overs. Every function takes the workspace id.
import type { CursorPosition } from '../../app/cursor.ts';
import type { Queryable } from '../../db/pool.ts';
import type { ResponseStatus } from './inbox.schemas.ts';
import type { InboxItemRow, InboxKind, InboxStatus } from './inbox.types.ts';

export const ITEM_COLUMNS = `i.id, i.workspace_id AS "workspaceId", i.connection_id AS "connectionId", i.brand_id AS "brandId",
  i.platform, i.kind, i.post_id AS "postId", i.platform_post_id AS "platformPostId", i.thread_id AS "threadId",
  i.parent_id AS "parentId", i.platform_item_id AS "platformItemId", i.author, i.text, i.permalink,
  i.received_at AS "receivedAt", i.ingested_at AS "ingestedAt", i.status, i.assignee_id AS "assigneeId", i.labels,
  i.reply_window_ends_at AS "replyWindowEndsAt", i.from_account AS "fromAccount"`;

export interface InboxFilters {
  kinds?: InboxKind[];
  statuses?: InboxStatus[];
  platform?: string;
  connectionId?: string;
  /** The brands the caller may see (null: every brand, and items of no brand). */
  brandIds: readonly string[] | null;
  postId?: string;
  assigneeId?: string;
  label?: string;
  q?: string;
  receivedFrom?: Date;
  receivedTo?: Date;
}

export async function listItems(
  db: Queryable,
  workspaceId: string,
  f: InboxFilters,
  after: CursorPosition | undefined,
  limit: number,
): Promise<InboxItemRow[]> {
  const params: unknown[] = [workspaceId];
  const where = ['i.workspace_id = $1'];
  const add = (sql: (n: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  // One status is an equality, so the (workspace_id, status, received_at, id) index serves the order as well.
  if (f.statuses?.length === 1) add((n) => `i.status = ${n}`, f.statuses[0]);
  else if (f.statuses) add((n) => `i.status = ANY(${n}::text[])`, f.statuses);
  if (f.kinds) add((n) => `i.kind = ANY(${n}::text[])`, f.kinds);
  if (f.platform) add((n) => `i.platform = ${n}`, f.platform);
  if (f.connectionId) add((n) => `i.connection_id = ${n}`, f.connectionId);
  // One brand (a brand-limited key, `brand_id=`) is an equality too, so a (workspace, brand, status, received_at)
  // index returns the page in order rather than sorting every match.
  if (f.brandIds?.length === 1) add((n) => `i.brand_id = ${n}`, f.brandIds[0]);
  else if (f.brandIds) add((n) => `i.brand_id = ANY(${n}::text[])`, f.brandIds);
  if (f.postId) add((n) => `i.post_id = ${n}`, f.postId);
  if (f.assigneeId) add((n) => `i.assignee_id = ${n}`, f.assigneeId);
  if (f.label) add((n) => `${n} = ANY(i.labels)`, f.label);
  if (f.q) add((n) => `strpos(lower(i.text), lower(${n})) > 0`, f.q);
  if (f.receivedFrom) add((n) => `i.received_at >= ${n}`, f.receivedFrom);
  if (f.receivedTo) add((n) => `i.received_at < ${n}`, f.receivedTo);
  if (after) {
    params.push(after.value, after.id);
    where.push(`(i.received_at, i.id) < ($${params.length - 1}::timestamptz, $${params.length}::text)`);
  }
  params.push(limit);
  const { rows } = await db.query<InboxItemRow>(
    `SELECT ${ITEM_COLUMNS} FROM inbox_items i WHERE ${where.join(' AND ')}
      ORDER BY i.received_at DESC, i.id DESC LIMIT $${params.length}`,
    params,
  );
  return rows;
}

export async function findItem(
  db: Queryable,
  workspaceId: string,
  id: string,
  lock = false,
): Promise<InboxItemRow | undefined> {
  const { rows } = await db.query<InboxItemRow>(
    `SELECT ${ITEM_COLUMNS} FROM inbox_items i WHERE i.workspace_id = $1 AND i.id = $2${lock ? ' FOR UPDATE' : ''}`,
    [workspaceId, id],
  );
  return rows[0];
}

/** The thread's items, oldest first (at most `limit`). */
export async function threadItems(
  db: Queryable,
  workspaceId: string,
  connectionId: string,
  threadId: string,
  limit = 200,
): Promise<InboxItemRow[]> {
  const { rows } = await db.query<InboxItemRow>(
    `SELECT ${ITEM_COLUMNS} FROM inbox_items i
      WHERE i.workspace_id = $1 AND i.connection_id = $2 AND i.thread_id = $3
      ORDER BY i.received_at, i.id LIMIT $4`,
    [workspaceId, connectionId, threadId, limit],
  );
  return rows;
}

export async function updateItem(
  db: Queryable,
  workspaceId: string,
  id: string,
  change: { status?: InboxStatus; assigneeId?: string | null; labels?: string[] },
): Promise<InboxItemRow | undefined> {
  const { rows } = await db.query<InboxItemRow>(
    `UPDATE inbox_items i
        SET status = COALESCE($3, i.status),
            assignee_id = CASE WHEN $4 THEN $5 ELSE i.assignee_id END,
            labels = COALESCE($6::text[], i.labels)
      WHERE i.workspace_id = $1 AND i.id = $2
      RETURNING ${ITEM_COLUMNS}`,
    [
      workspaceId,
      id,
      change.status ?? null,
      change.assigneeId !== undefined,
      change.assigneeId ?? null,
      change.labels ?? null,
    ],
  );
  return rows[0];
}

/** Adds labels (keeping the ones there) and, when given, assigns: an automation's `label` and `assign` actions. */
export async function tagItem(
  db: Queryable,
  workspaceId: string,
  id: string,
  labels: readonly string[],
  assigneeId: string | null,
): Promise<void> {
  await db.query(
    `UPDATE inbox_items SET labels = ARRAY(SELECT DISTINCT unnest(labels || $3::text[]) ORDER BY 1),
            assignee_id = COALESCE($4, assignee_id)
      WHERE workspace_id = $1 AND id = $2`,
    [workspaceId, id, labels, assigneeId],
  );
}

export async function isMember(db: Queryable, workspaceId: string, userId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM memberships WHERE workspace_id = $1 AND user_id = $2', [
    workspaceId,
    userId,
  ]);
  return rows.length > 0;
}

// ---- Drafts

export interface DraftRow {
  item_id: string;
  text: string;
  source: 'text' | 'template' | 'generated';
  generated_by: Record<string, unknown> | null;
  updated_at: Date;
}

export async function findDrafts(
  db: Queryable,
  workspaceId: string,
  itemIds: string[],
): Promise<Map<string, DraftRow>> {
  const { rows } = await db.query<DraftRow>(
    'SELECT item_id, text, source, generated_by, updated_at FROM inbox_drafts WHERE workspace_id = $1 AND item_id = ANY($2)',
    [workspaceId, itemIds],
  );
  return new Map(rows.map((r) => [r.item_id, r]));
}

export async function saveDraft(
  db: Queryable,
  workspaceId: string,
  itemId: string,
  draft: { text: string; source: DraftRow['source']; generatedBy: unknown; userId: string | null },
): Promise<DraftRow> {
  const { rows } = await db.query<DraftRow>(
    `INSERT INTO inbox_drafts (item_id, workspace_id, text, source, generated_by, updated_by)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (item_id) DO UPDATE SET text = EXCLUDED.text, source = EXCLUDED.source,
       generated_by = EXCLUDED.generated_by, updated_by = EXCLUDED.updated_by, updated_at = now()
     RETURNING item_id, text, source, generated_by, updated_at`,
    [
      itemId,
      workspaceId,
      draft.text,
      draft.source,
      draft.generatedBy ? JSON.stringify(draft.generatedBy) : null,
      draft.userId,
    ],
  );
  return rows[0]!;
}

// ---- Responses

export interface ResponseRow {
  id: string;
  workspace_id: string;
  item_id: string;
  text: string;
  private: boolean;
  source: 'api' | 'automation';
  automation_id: string | null;
  sent_by: string | null;
  idempotency_key: string | null;
  status: ResponseStatus;
  send_after: Date | null;
  platform_reply_id: string | null;
  permalink: string | null;
  error: { code: string; rule?: string; message: string } | null;
  created_at: Date;
  sent_at: Date | null;
}

const RESPONSE_COLUMNS = `id, workspace_id, item_id, text, private, source, automation_id, sent_by, idempotency_key,
  status, send_after, platform_reply_id, permalink, error, created_at, sent_at`;

export async function insertResponse(
  db: Queryable,
  r: Pick<
    ResponseRow,
    'id' | 'workspace_id' | 'item_id' | 'text' | 'private' | 'source' | 'automation_id' | 'sent_by'
  > & {
    idempotency_key: string | null;
    status: ResponseStatus;
    send_after: Date | null;
  },
): Promise<ResponseRow> {
  const { rows } = await db.query<ResponseRow>(
    `INSERT INTO inbox_responses (id, workspace_id, item_id, text, private, source, automation_id, sent_by,
                                  idempotency_key, status, send_after)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${RESPONSE_COLUMNS}`,
    [
      r.id,
      r.workspace_id,
      r.item_id,
      r.text,
      r.private,
      r.source,
      r.automation_id,
      r.sent_by,
      r.idempotency_key,
      r.status,
      r.send_after,
    ],
  );
  return rows[0]!;
}

/**
 * Writes a person's reply as `sending` under its Idempotency-Key; undefined when a reply with that key already
 * exists (a concurrent request won): only the request that wrote the row calls the platform.
 */
export async function claimResponseKey(
  db: Queryable,
  r: {
    id: string;
    workspaceId: string;
    itemId: string;
    text: string;
    private: boolean;
    sentBy: string | null;
    key: string;
  },
): Promise<ResponseRow | undefined> {
  const { rows } = await db.query<ResponseRow>(
    `INSERT INTO inbox_responses (id, workspace_id, item_id, text, private, source, sent_by, idempotency_key, status)
     VALUES ($1, $2, $3, $4, $5, 'api', $6, $7, 'sending') ON CONFLICT DO NOTHING RETURNING ${RESPONSE_COLUMNS}`,
    [r.id, r.workspaceId, r.itemId, r.text, r.private, r.sentBy, r.key],
  );
  return rows[0];
}

export async function findResponse(
  db: Queryable,
  workspaceId: string,
  id: string,
  lock = false,
): Promise<ResponseRow | undefined> {
  const { rows } = await db.query<ResponseRow>(
    `SELECT ${RESPONSE_COLUMNS} FROM inbox_responses WHERE workspace_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [workspaceId, id],
  );
  return rows[0];
}

export async function findResponseByKey(
  db: Queryable,
  workspaceId: string,
  itemId: string,
  key: string,
): Promise<ResponseRow | undefined> {
  const { rows } = await db.query<ResponseRow>(
    `SELECT ${RESPONSE_COLUMNS} FROM inbox_responses WHERE workspace_id = $1 AND item_id = $2 AND idempotency_key = $3`,
    [workspaceId, itemId, key],
  );
  return rows[0];
}

export async function responsesOf(
  db: Queryable,
  workspaceId: string,
  itemIds: string[],
): Promise<Map<string, ResponseRow[]>> {
  const { rows } = await db.query<ResponseRow>(
    `SELECT ${RESPONSE_COLUMNS} FROM inbox_responses WHERE workspace_id = $1 AND item_id = ANY($2) ORDER BY created_at, id`,
    [workspaceId, itemIds],
  );
  const byItem = new Map<string, ResponseRow[]>();
  for (const r of rows) byItem.set(r.item_id, [...(byItem.get(r.item_id) ?? []), r]);
  return byItem;
}

/** Moves a response from one of `from` to `to` with the fields of its outcome; undefined when it was elsewhere. */
export async function moveResponse(
  db: Queryable,
  workspaceId: string,
  id: string,
  from: readonly ResponseStatus[],
  to: ResponseStatus,
  outcome: { platformReplyId?: string; permalink?: string | null; error?: ResponseRow['error']; sendAfter?: Date } = {},
): Promise<ResponseRow | undefined> {
  const { rows } = await db.query<ResponseRow>(
    `UPDATE inbox_responses
        SET status = $4, platform_reply_id = COALESCE($5, platform_reply_id), permalink = COALESCE($6, permalink),
            error = $7, send_after = COALESCE($8, send_after), sent_at = CASE WHEN $4 = 'sent' THEN now() ELSE sent_at END
      WHERE workspace_id = $1 AND id = $2 AND status = ANY($3::text[])
      RETURNING ${RESPONSE_COLUMNS}`,
    [
      workspaceId,
      id,
      from,
      to,
      outcome.platformReplyId ?? null,
      outcome.permalink ?? null,
      outcome.error ? JSON.stringify(outcome.error) : null,
      outcome.sendAfter ?? null,
    ],
  );
  return rows[0];
}

/** True when an automation's reply has this platform id: its ingested copy is not a person answering. */
export async function isAutomationReply(db: Queryable, workspaceId: string, platformReplyId: string): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM inbox_responses WHERE workspace_id = $1 AND platform_reply_id = $2 AND source = 'automation'`,
    [workspaceId, platformReplyId],
  );
  return rows.length > 0;
}

// ---- Thread take-overs

export async function takeOverThread(
  db: Queryable,
  workspaceId: string,
  item: Pick<InboxItemRow, 'connectionId' | 'threadId'>,
  by: { itemId?: string; userId?: string },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO inbox_thread_takeovers (workspace_id, connection_id, thread_id, by_item_id, by_user_id)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
    [workspaceId, item.connectionId, item.threadId, by.itemId ?? null, by.userId ?? null],
  );
  return (rowCount ?? 0) > 0;
}

/** The threads of these items a person has answered in, as `connection_id thread_id` keys. */
export async function takenOverThreads(
  db: Queryable,
  workspaceId: string,
  items: ReadonlyArray<Pick<InboxItemRow, 'connectionId' | 'threadId'>>,
): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  const { rows } = await db.query<{ k: string }>(
    `SELECT t.connection_id || ' ' || t.thread_id AS k FROM inbox_thread_takeovers t
       JOIN unnest($2::text[], $3::text[]) AS x(c, th) ON t.connection_id = x.c AND t.thread_id = x.th
      WHERE t.workspace_id = $1`,
    [workspaceId, items.map((i) => i.connectionId), items.map((i) => i.threadId)],
  );
  return new Set(rows.map((r) => r.k));
}

export const threadKey = (i: Pick<InboxItemRow, 'connectionId' | 'threadId'>) => `${i.connectionId} ${i.threadId}`;
