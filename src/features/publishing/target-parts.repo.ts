// SQL for the parts of a target (target_parts, owned here): one row per post of a thread, marked `sending`
// with its idempotency key before the platform call. Every write is fenced by the target's claim token.
import type { Queryable } from '../../db/pool.ts';
import type { PublishedPart } from '../../platforms/types.ts';

const PART_COLUMNS = 'position, state, idempotency_key, first_sent_at, platform_post_id, url, ref, published_at';

export interface PartRow {
  position: number;
  state: 'sending' | 'published';
  idempotency_key: string;
  first_sent_at: Date;
  platform_post_id: string | null;
  url: string | null;
  ref: Record<string, string> | null;
  published_at: Date | null;
}

export async function findParts(db: Queryable, workspaceId: string, targetId: string): Promise<PartRow[]> {
  return (await findPartsOf(db, [targetId])).filter((p) => p.workspace_id === workspaceId);
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
    `INSERT INTO target_parts (target_id, workspace_id, position, state, idempotency_key)
     SELECT m.target_id, m.workspace_id, m.position, 'sending', m.key
       FROM unnest($1::text[], $2::uuid[], $3::int[], $4::int[], $5::text[]) AS m(target_id, workspace_id, token, position, key)
      WHERE EXISTS (SELECT 1 FROM post_targets t WHERE t.id = m.target_id AND t.workspace_id = m.workspace_id AND t.claim_token = m.token)
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

/** Records what the platform answered for parts; returns the `target_id/position` of those whose claim still held. */
export async function markPartsPublished(
  db: Queryable,
  parts: Array<PartWrite & { part: PublishedPart }>,
): Promise<Set<string>> {
  if (parts.length === 0) return new Set();
  const { rows } = await db.query<{ target_id: string; position: number }>(
    `UPDATE target_parts p SET state = 'published', platform_post_id = m.platform_post_id, url = m.url, ref = m.ref::jsonb, published_at = now()
       FROM unnest($1::text[], $2::uuid[], $3::int[], $4::int[], $5::text[], $6::text[], $7::text[])
              AS m(target_id, workspace_id, token, position, platform_post_id, url, ref)
      WHERE p.workspace_id = m.workspace_id AND p.target_id = m.target_id AND p.position = m.position
        AND EXISTS (SELECT 1 FROM post_targets t WHERE t.id = m.target_id AND t.claim_token = m.token)
     RETURNING p.target_id, p.position`,
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
  return new Set(rows.map((r) => `${r.target_id}/${r.position}`));
}
