// SQL for the parts of a target (target_parts, owned here): one row per post of a thread, marked `sending`
// with its idempotency key before the platform call. Every write of the engine is fenced by the target's claim token;
// `moveParts` follows the target to a new connection, in the transaction that moves it.
import type { Queryable } from '../../db/pool.ts';
import type { PendingRefs, PublishedPart } from '../../platforms/types.ts';

const PART_COLUMNS =
  'position, state, idempotency_key, first_sent_at, platform_post_id, url, ref, published_at, pending_refs';

export interface PartRow {
  position: number;
  state: 'sending' | 'published';
  idempotency_key: string;
  first_sent_at: Date;
  platform_post_id: string | null;
  url: string | null;
  ref: Record<string, string> | null;
  published_at: Date | null;
  /** What the adapter recorded before the call that publishes the part (a Meta container id); `{}` when nothing. */
  pending_refs: PendingRefs;
}

export async function findParts(db: Queryable, workspaceId: string, targetId: string): Promise<PartRow[]> {
  return (await findPartsOf(db, [targetId])).filter((p) => p.workspace_id === workspaceId);
}

/**
 * Records a part's pending references (its `remember`), fenced by the claim like every part write, before the
 * platform call that could use them; false when the claim was lost (or the part is no longer `sending`).
 */
export async function recordPendingRefs(db: Queryable, part: PartWrite & { refs: PendingRefs }): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE target_parts p SET pending_refs = $5::jsonb
      WHERE p.workspace_id = $1 AND p.target_id = $2 AND p.position = $4 AND p.state = 'sending'
        AND EXISTS (SELECT 1 FROM post_targets t WHERE t.id = p.target_id AND t.workspace_id = p.workspace_id AND t.claim_token = $3)`,
    [part.workspaceId, part.targetId, part.token, part.position, JSON.stringify(part.refs)],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * Deletes a part still `sending` whose only send the platform refused (parts.ts), fenced by the claim: the next
 * attempt marks it afresh. False when the claim was lost.
 */
export async function discardSendingPart(db: Queryable, part: PartWrite): Promise<boolean> {
  const { rowCount } = await db.query(
    `DELETE FROM target_parts p
      WHERE p.workspace_id = $1 AND p.target_id = $2 AND p.position = $4 AND p.state = 'sending'
        AND EXISTS (SELECT 1 FROM post_targets t WHERE t.id = p.target_id AND t.workspace_id = p.workspace_id AND t.claim_token = $3)`,
    [part.workspaceId, part.targetId, part.token, part.position],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * SQL: the connections of target $2's platform account in workspace $1. Its own, and the workspace's other
 * connections of the same account (same platform, server and account id) whatever their status: reconnecting an
 * account that was disconnected makes a new connection row, and the posts published through the old one are still
 * that account's.
 */
const ACCOUNT_CONNECTIONS = `SELECT same.id FROM post_targets t
    JOIN connections c ON c.id = t.connection_id
    JOIN connections same ON same.workspace_id = c.workspace_id AND same.platform = c.platform
     AND same.account_id = c.account_id AND same.server_url IS NOT DISTINCT FROM c.server_url
   WHERE t.id = $2 AND t.workspace_id = $1`;

/**
 * The platform post ids the other parts of this part's platform account hold (ACCOUNT_CONNECTIONS), published since
 * `since`: what a look-up for this part must not adopt.
 */
export async function platformIdsHeldElsewhere(
  db: Queryable,
  part: Omit<PartWrite, 'token'>,
  since: Date,
): Promise<Set<string>> {
  const { rows } = await db.query<{ platform_post_id: string }>(
    `SELECT o.platform_post_id FROM target_parts o
      WHERE o.connection_id IN (${ACCOUNT_CONNECTIONS})
        AND o.platform_post_id IS NOT NULL AND o.published_at >= $4
        AND NOT (o.target_id = $2 AND o.position = $3)`,
    [part.workspaceId, part.targetId, part.position, since],
  );
  return new Set(rows.map((r) => r.platform_post_id));
}

/**
 * Moves a target's parts to the connection the target now goes through (a retry through a reconnected account), in
 * the transaction that moves the target, so that the unique index and the look-ups see them where the target is. A
 * part whose platform post a part of the new connection already holds keeps its old connection (the index allows
 * one); ACCOUNT_CONNECTIONS still counts it.
 */
export async function moveParts(
  db: Queryable,
  workspaceId: string,
  targetId: string,
  connectionId: string,
): Promise<void> {
  await db.query(
    `UPDATE target_parts p SET connection_id = $3
      WHERE p.workspace_id = $1 AND p.target_id = $2 AND p.connection_id IS DISTINCT FROM $3
        AND (p.platform_post_id IS NULL
          OR NOT EXISTS (SELECT 1 FROM target_parts o WHERE o.connection_id = $3 AND o.platform_post_id = p.platform_post_id))`,
    [workspaceId, targetId, connectionId],
  );
}

/**
 * The live (not deleted) Herald post whose published part on this target's platform account has this text or this
 * platform post, the most recent first: the post a platform's duplicate rejection is about, when Herald published it.
 */
export async function postHolding(
  db: Queryable,
  workspaceId: string,
  targetId: string,
  by: { text: string } | { platformPostId: string },
): Promise<string | undefined> {
  // A part's text: the post's content (or its platform's `content`) with the brand's additions for part 0, the
  // platform's `thread` after it.
  const matches =
    'text' in by
      ? `CASE WHEN o.position = 0 THEN coalesce(p.platform_options -> t.platform ->> 'content', p.content)
                || coalesce(p.brand_additions -> t.platform ->> 'suffix', '')
              ELSE p.platform_options -> t.platform -> 'thread' ->> (o.position - 1) END = $3`
      : 'o.platform_post_id = $3';
  const { rows } = await db.query<{ post_id: string }>(
    `SELECT t.post_id FROM target_parts o
       JOIN post_targets t ON t.id = o.target_id
       JOIN posts p ON p.id = t.post_id
      WHERE o.connection_id IN (${ACCOUNT_CONNECTIONS})
        AND o.state = 'published' AND p.deleted_at IS NULL AND ${matches}
      ORDER BY o.published_at DESC
      LIMIT 1`,
    [workspaceId, targetId, 'text' in by ? by.text : by.platformPostId],
  );
  return rows[0]?.post_id;
}

// ---- Across workspaces on purpose (the publishing engine's batches): docs/tables.md ----

/** The parts of several targets, by target and position. */
export async function findPartsOf(
  db: Queryable,
  targetIds: string[],
): Promise<Array<PartRow & { target_id: string; workspace_id: string }>> {
  if (targetIds.length === 0) return [];
  const { rows } = await db.query<PartRow & { target_id: string; workspace_id: string }>(
    `SELECT target_id, workspace_id, ${PART_COLUMNS} FROM target_parts WHERE target_id = ANY($1::text[]) ORDER BY target_id, position`,
    [targetIds],
  );
  return rows;
}

export interface PartWrite {
  workspaceId: string;
  targetId: string;
  /** The claim token the write is fenced by. */
  token: number;
  position: number;
}

/** Marks parts `sending` with their keys, before the platform calls; a part whose claim was lost is not returned. */
export async function markSending(
  db: Queryable,
  parts: Array<PartWrite & { key: string }>,
): Promise<Array<PartRow & { target_id: string }>> {
  if (parts.length === 0) return [];
  const { rows } = await db.query<PartRow & { target_id: string }>(
    `INSERT INTO target_parts (target_id, workspace_id, position, state, idempotency_key, connection_id)
     SELECT m.target_id, m.workspace_id, m.position, 'sending', m.key, t.connection_id
       FROM unnest($1::text[], $2::uuid[], $3::int[], $4::int[], $5::text[]) AS m(target_id, workspace_id, token, position, key)
       JOIN post_targets t ON t.id = m.target_id AND t.workspace_id = m.workspace_id AND t.claim_token = m.token
     RETURNING target_id, ${PART_COLUMNS}`,
    [
      parts.map((p) => p.targetId),
      parts.map((p) => p.workspaceId),
      parts.map((p) => p.token),
      parts.map((p) => p.position),
      parts.map((p) => p.key),
    ],
  );
  return rows;
}

/**
 * What marking a part published came to: `taken` when another part of the same connection already holds that
 * platform post (target_parts_platform_post_idx: a platform post is one Herald part's), `lost_claim` when the claim
 * was lost.
 */
export type PartMark = 'published' | 'taken' | 'lost_claim';

/**
 * Records what the platform answered for parts; returns, by `target_id/position`, those whose claim still held
 * (`published`) or whose platform post another part of the connection already holds (`taken`, left `sending`).
 * Only what the statement cannot see is left to the unique index: two parts of one batch given the same post, or a
 * concurrent mark. Then a batch throws, and the batcher marks its parts one by one, so that only the part at fault is
 * `taken`.
 */
export async function markPartsPublished(
  db: Queryable,
  parts: Array<PartWrite & { part: PublishedPart }>,
): Promise<Map<string, Exclude<PartMark, 'lost_claim'>>> {
  if (parts.length === 0) return new Map();
  const query = db.query<{ target_id: string; position: number; mark: Exclude<PartMark, 'lost_claim'> }>(
    `WITH m AS (
       SELECT * FROM unnest($1::text[], $2::uuid[], $3::int[], $4::int[], $5::text[], $6::text[], $7::text[])
           AS m(target_id, workspace_id, token, position, platform_post_id, url, ref)
     ), fenced AS (
       SELECT m.*, EXISTS (
                SELECT 1 FROM target_parts o
                 WHERE o.connection_id = p.connection_id AND o.platform_post_id = m.platform_post_id
                   AND NOT (o.target_id = p.target_id AND o.position = p.position)) AS taken
         FROM m JOIN target_parts p ON p.workspace_id = m.workspace_id AND p.target_id = m.target_id AND p.position = m.position
        WHERE EXISTS (SELECT 1 FROM post_targets t WHERE t.id = m.target_id AND t.claim_token = m.token)
     ), marked AS (
       UPDATE target_parts p SET state = 'published', platform_post_id = f.platform_post_id, url = f.url, ref = f.ref::jsonb, published_at = now()
         FROM fenced f
        WHERE NOT f.taken AND p.workspace_id = f.workspace_id AND p.target_id = f.target_id AND p.position = f.position
       RETURNING p.target_id, p.position
     )
     SELECT target_id, position, 'published' AS mark FROM marked
     UNION ALL SELECT target_id, position, 'taken' FROM fenced WHERE taken`,
    [
      parts.map((p) => p.targetId),
      parts.map((p) => p.workspaceId),
      parts.map((p) => p.token),
      parts.map((p) => p.position),
      parts.map((p) => p.part.id),
      parts.map((p) => p.part.url),
      parts.map((p) => (p.part.ref ? JSON.stringify(p.part.ref) : null)),
    ],
  );
  try {
    const { rows } = await query;
    return new Map(rows.map((r) => [`${r.target_id}/${r.position}`, r.mark]));
  } catch (error) {
    const only = parts.length === 1 ? parts[0]! : undefined;
    if (only && isPlatformIdTaken(error)) return new Map([[`${only.targetId}/${only.position}`, 'taken']]);
    throw error;
  }
}

function isPlatformIdTaken(error: unknown): boolean {
  return (
    error instanceof Error &&
    'code' in error &&
    error.code === '23505' &&
    'constraint' in error &&
    error.constraint === 'target_parts_platform_post_idx'
  );
}
