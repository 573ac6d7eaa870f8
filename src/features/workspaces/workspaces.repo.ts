// SQL for workspaces, memberships and instance settings (users are users/users.repo.ts; brands, brands/brands.repo.ts,
// but for the existence check every face's access uses, `findBrand`).
import type { Queryable } from '../../db/pool.ts';
import type { WorkspaceMode } from '../../app/context.ts';

export type MemberRole = 'owner' | 'admin' | 'member';

export interface WorkspaceRow {
  id: string;
  name: string;
  mode: WorkspaceMode;
  created_at: Date;
  default_brand_id: string | null;
}

/** The few columns of a brand the access checks read. */
export interface BrandRef {
  id: string;
  workspace_id: string;
  name: string;
  is_default: boolean;
  created_at: Date;
}

export async function insertWorkspace(
  db: Queryable,
  w: { id: string; name: string; mode: WorkspaceMode },
): Promise<void> {
  await db.query('INSERT INTO workspaces (id, name, mode) VALUES ($1, $2, $3)', [w.id, w.name, w.mode]);
}

export async function addMembership(
  db: Queryable,
  workspaceId: string,
  userId: string,
  role: MemberRole,
): Promise<void> {
  await db.query(
    'INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = EXCLUDED.role',
    [workspaceId, userId, role],
  );
}

const WORKSPACE_COLUMNS = `w.id, w.name, w.mode, w.created_at,
  (SELECT b.id FROM brands b WHERE b.workspace_id = w.id AND b.is_default) AS default_brand_id`;

export async function findWorkspace(db: Queryable, id: string): Promise<WorkspaceRow | undefined> {
  const { rows } = await db.query<WorkspaceRow>(`SELECT ${WORKSPACE_COLUMNS} FROM workspaces w WHERE w.id = $1`, [id]);
  return rows[0];
}

export async function listAllWorkspaces(db: Queryable): Promise<WorkspaceRow[]> {
  const { rows } = await db.query<WorkspaceRow>(
    `SELECT ${WORKSPACE_COLUMNS} FROM workspaces w ORDER BY w.created_at, w.id`,
  );
  return rows;
}

/** Workspaces among `ids`, ordered for keyset pagination by (created_at, id). */
export async function listWorkspacesByIds(
  db: Queryable,
  ids: string[],
  after: { createdAt: Date; id: string } | undefined,
  limit: number,
): Promise<WorkspaceRow[]> {
  const { rows } = await db.query<WorkspaceRow>(
    `SELECT ${WORKSPACE_COLUMNS} FROM workspaces w
      WHERE w.id = ANY($1::uuid[]) AND ($2::timestamptz IS NULL OR (w.created_at, w.id) > ($2, $3::uuid))
      ORDER BY w.created_at, w.id LIMIT $4`,
    [ids, after?.createdAt ?? null, after?.id ?? null, limit],
  );
  return rows;
}

export async function workspaceModes(db: Queryable, ids: string[]): Promise<Map<string, WorkspaceMode>> {
  const { rows } = await db.query<{ id: string; mode: WorkspaceMode }>(
    'SELECT id, mode FROM workspaces WHERE id = ANY($1::uuid[])',
    [ids],
  );
  return new Map(rows.map((r) => [r.id, r.mode]));
}

/** A live (not deleted) brand of the workspace. */
export async function findBrand(db: Queryable, workspaceId: string, brandId: string): Promise<BrandRef | undefined> {
  const { rows } = await db.query<BrandRef>(
    'SELECT id, workspace_id, name, is_default, created_at FROM brands WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL',
    [workspaceId, brandId],
  );
  return rows[0];
}

/** Where the API server records the public URL it serves under (CLI commands that print links read it). */
export const PUBLIC_URL_SETTING = 'public_url';

export async function getSetting(db: Queryable, key: string): Promise<string | undefined> {
  const { rows } = await db.query<{ value: string }>('SELECT value FROM instance_settings WHERE key = $1', [key]);
  return rows[0]?.value;
}

export async function setSetting(db: Queryable, key: string, value: string): Promise<void> {
  await db.query(
    'INSERT INTO instance_settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value',
    [key, value],
  );
}

// ---- Memberships changed by people (the members API: src/features/members/) --------------------------------------

export async function findMembership(
  db: Queryable,
  workspaceId: string,
  userId: string,
): Promise<{ role: MemberRole } | undefined> {
  const { rows } = await db.query<{ role: MemberRole }>(
    'SELECT role FROM memberships WHERE workspace_id = $1 AND user_id = $2',
    [workspaceId, userId],
  );
  return rows[0];
}

/** The owners of a workspace, locked until the caller's transaction ends (so two demotions cannot both pass). */
export async function lockOwners(db: Queryable, workspaceId: string): Promise<string[]> {
  const { rows } = await db.query<{ user_id: string }>(
    `SELECT user_id FROM memberships WHERE workspace_id = $1 AND role = 'owner' ORDER BY user_id FOR UPDATE`,
    [workspaceId],
  );
  return rows.map((r) => r.user_id);
}

export async function setMembershipRole(
  db: Queryable,
  workspaceId: string,
  userId: string,
  role: MemberRole,
): Promise<void> {
  await db.query('UPDATE memberships SET role = $3 WHERE workspace_id = $1 AND user_id = $2', [
    workspaceId,
    userId,
    role,
  ]);
}

export async function deleteMembership(db: Queryable, workspaceId: string, userId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM memberships WHERE workspace_id = $1 AND user_id = $2', [
    workspaceId,
    userId,
  ]);
  return rowCount === 1;
}

/** Adds a membership unless the person already has one (an invite never changes an existing role). */
export async function addMembershipIfAbsent(
  db: Queryable,
  workspaceId: string,
  userId: string,
  role: MemberRole,
): Promise<void> {
  await db.query(
    'INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT (workspace_id, user_id) DO NOTHING',
    [workspaceId, userId, role],
  );
}
