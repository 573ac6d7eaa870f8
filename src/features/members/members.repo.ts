// SQL of the members API: the one writer of workspace_invites (migration 0030), and the reads of a workspace's
// members (memberships themselves are written by src/features/workspaces/workspaces.repo.ts).
import type { Queryable } from '../../db/pool.ts';
import type { MemberRole } from '../workspaces/workspaces.repo.ts';

export interface MemberRow {
  user_id: string;
  email: string;
  name: string | null;
  role: MemberRole;
  created_at: Date;
}

export interface InviteRow {
  id: string;
  workspace_id: string;
  email: string;
  role: MemberRole;
  invited_by: string | null;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  accepted_by: string | null;
}

const MEMBER_COLUMNS = 'u.id AS user_id, u.email, u.name, m.role, m.created_at';
const INVITE_COLUMNS =
  'i.id, i.workspace_id, i.email, i.role, i.invited_by, i.created_at, i.expires_at, i.accepted_at, i.accepted_by';

export async function listMembers(
  db: Queryable,
  workspaceId: string,
  after: { createdAt: Date; id: string } | undefined,
  limit: number,
): Promise<MemberRow[]> {
  const { rows } = await db.query<MemberRow>(
    `SELECT ${MEMBER_COLUMNS} FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.workspace_id = $1 AND ($2::timestamptz IS NULL OR (m.created_at, u.id) > ($2, $3::text))
      ORDER BY m.created_at, u.id LIMIT $4`,
    [workspaceId, after?.createdAt ?? null, after?.id ?? null, limit],
  );
  return rows;
}

export async function findMember(db: Queryable, workspaceId: string, userId: string): Promise<MemberRow | undefined> {
  const { rows } = await db.query<MemberRow>(
    `SELECT ${MEMBER_COLUMNS} FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.workspace_id = $1 AND m.user_id = $2`,
    [workspaceId, userId],
  );
  return rows[0];
}

export async function isMemberByEmail(db: Queryable, workspaceId: string, email: string): Promise<boolean> {
  const { rows } = await db.query(
    'SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.workspace_id = $1 AND lower(u.email) = lower($2)',
    [workspaceId, email],
  );
  return rows.length > 0;
}

export async function insertInvite(
  db: Queryable,
  i: {
    id: string;
    workspaceId: string;
    email: string;
    role: MemberRole;
    tokenHash: Buffer;
    invitedBy: string;
    expiresAt: Date;
  },
): Promise<InviteRow> {
  const { rows } = await db.query<InviteRow>(
    `INSERT INTO workspace_invites AS i (id, workspace_id, email, role, token_hash, invited_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${INVITE_COLUMNS}`,
    [i.id, i.workspaceId, i.email, i.role, i.tokenHash, i.invitedBy, i.expiresAt],
  );
  return rows[0]!;
}

export async function listInvites(
  db: Queryable,
  workspaceId: string,
  after: { createdAt: Date; id: string } | undefined,
  limit: number,
): Promise<InviteRow[]> {
  const { rows } = await db.query<InviteRow>(
    `SELECT ${INVITE_COLUMNS} FROM workspace_invites i
      WHERE i.workspace_id = $1 AND ($2::timestamptz IS NULL OR (i.created_at, i.id) > ($2, $3::text))
      ORDER BY i.created_at, i.id LIMIT $4`,
    [workspaceId, after?.createdAt ?? null, after?.id ?? null, limit],
  );
  return rows;
}

export async function findInvite(db: Queryable, workspaceId: string, id: string): Promise<InviteRow | undefined> {
  const { rows } = await db.query<InviteRow>(
    `SELECT ${INVITE_COLUMNS} FROM workspace_invites i WHERE i.workspace_id = $1 AND i.id = $2`,
    [workspaceId, id],
  );
  return rows[0];
}

export async function deleteInvite(db: Queryable, workspaceId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM workspace_invites WHERE workspace_id = $1 AND id = $2', [
    workspaceId,
    id,
  ]);
  return rowCount === 1;
}

// ---- Accepting: the link's token names the invite, whatever workspace it is for (the link is the credential) ----

/** The invite a link's token names, locked for the accept that follows (so it is used once). */
export async function lockInviteByToken(db: Queryable, tokenHash: Buffer): Promise<InviteRow | undefined> {
  const { rows } = await db.query<InviteRow>(
    `SELECT ${INVITE_COLUMNS} FROM workspace_invites i WHERE i.token_hash = $1 FOR UPDATE`,
    [tokenHash],
  );
  return rows[0];
}

export async function markInviteAccepted(db: Queryable, id: string, userId: string): Promise<void> {
  await db.query('UPDATE workspace_invites SET accepted_at = now(), accepted_by = $2 WHERE id = $1', [id, userId]);
}
