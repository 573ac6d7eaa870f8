// SQL for people, the one writer of users (docs/tables.md): accounts, passwords, browser sessions, failed
// sign-ins and what a person may reach (memberships).
import type { Queryable } from '../../db/pool.ts';
import type { MemberRole } from '../workspaces/workspaces.repo.ts';
import type { WorkspaceMode } from '../../app/context.ts';

export interface UserWithPassword {
  id: string;
  email: string;
  password_hash: string | null;
}

export async function insertUser(db: Queryable, id: string, email: string): Promise<void> {
  await db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [id, email]);
}

export async function findUserByEmail(
  db: Queryable,
  email: string,
): Promise<{ id: string; email: string } | undefined> {
  const { rows } = await db.query<{ id: string; email: string }>(
    'SELECT id, email FROM users WHERE lower(email) = lower($1)',
    [email],
  );
  return rows[0];
}

export async function findUser(db: Queryable, id: string): Promise<{ id: string; email: string } | undefined> {
  const { rows } = await db.query<{ id: string; email: string }>('SELECT id, email FROM users WHERE id = $1', [id]);
  return rows[0];
}

export async function findUserWithPassword(db: Queryable, email: string): Promise<UserWithPassword | undefined> {
  const { rows } = await db.query<UserWithPassword>(
    'SELECT id, email, password_hash FROM users WHERE lower(email) = lower($1)',
    [email],
  );
  return rows[0];
}

export async function setPasswordHash(db: Queryable, userId: string, hash: string): Promise<void> {
  await db.query('UPDATE users SET password_hash = $2 WHERE id = $1', [userId, hash]);
}

export async function hasPassword(db: Queryable, userId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM users WHERE id = $1 AND password_hash IS NOT NULL', [userId]);
  return rows.length === 1;
}

/** Sets the password only if the account has none; true when it did. */
export async function setPasswordHashIfUnset(db: Queryable, userId: string, hash: string): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE users SET password_hash = $2 WHERE id = $1 AND password_hash IS NULL', [
    userId,
    hash,
  ]);
  return rowCount === 1;
}

// ---- Sessions ----------------------------------------------------------------------------------------------

export async function insertSession(db: Queryable, tokenHash: Buffer, userId: string, expiresAt: Date): Promise<void> {
  await db.query('INSERT INTO user_sessions (token_hash, user_id, expires_at) VALUES ($1, $2, $3)', [
    tokenHash,
    userId,
    expiresAt,
  ]);
}

export async function findSession(
  db: Queryable,
  tokenHash: Buffer,
): Promise<{ user_id: string; email: string } | undefined> {
  const { rows } = await db.query<{ user_id: string; email: string }>(
    `SELECT s.user_id, u.email FROM user_sessions s JOIN users u ON u.id = s.user_id
      WHERE s.token_hash = $1 AND s.expires_at > now()`,
    [tokenHash],
  );
  return rows[0];
}

export async function deleteSession(db: Queryable, tokenHash: Buffer): Promise<void> {
  await db.query('DELETE FROM user_sessions WHERE token_hash = $1', [tokenHash]);
}

export async function deleteUserSessions(db: Queryable, userId: string): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM user_sessions WHERE user_id = $1', [userId]);
  return rowCount ?? 0;
}

// ---- Failed sign-ins ---------------------------------------------------------------------------------------

/** How long any of `keys` must still wait before an attempt is checked; undefined when none waits. */
export async function throttledUntil(db: Queryable, keys: Buffer[]): Promise<Date | undefined> {
  const { rows } = await db.query<{ until: Date | null }>(
    'SELECT max(next_attempt_at) AS until FROM login_throttle WHERE key_hash = ANY($1) AND next_attempt_at > now()',
    [keys],
  );
  return rows[0]?.until ?? undefined;
}

export interface ThrottlePolicy {
  /** Failures before the first wait. */
  freeFailures: number;
  /** The first wait; each further failure doubles it. */
  baseDelaySeconds: number;
  maxDelaySeconds: number;
  /** A key without a failure for this long starts again from zero. */
  forgetSeconds: number;
}

/**
 * Counts one failure for `key` (from zero again when its last failure is older than `forgetSeconds`); from the
 * `freeFailures`-th on, the next attempt must wait base × 2^(failures − freeFailures), capped. Returns the wait's
 * end, if any.
 */
export async function recordLoginFailure(db: Queryable, key: Buffer, policy: ThrottlePolicy): Promise<Date | null> {
  // The count after this failure, and the wait it earns (repeated in both branches: one statement, one row lock).
  const count = 'CASE WHEN t.last_failure_at < now() - make_interval(secs => $5) THEN 1 ELSE t.failures + 1 END';
  const wait = (n: string) =>
    `CASE WHEN ${n} >= $2 THEN now() + make_interval(secs => least($4::float8, $3::float8 * power(2, least(${n} - $2, 30)))) END`;
  const { rows } = await db.query<{ next_attempt_at: Date | null }>(
    `INSERT INTO login_throttle AS t (key_hash, failures, last_failure_at, next_attempt_at)
     VALUES ($1, 1, now(), ${wait('1')})
     ON CONFLICT (key_hash) DO UPDATE SET
       failures = ${count}, last_failure_at = now(), next_attempt_at = ${wait(count)}
     RETURNING next_attempt_at`,
    [key, policy.freeFailures, policy.baseDelaySeconds, policy.maxDelaySeconds, policy.forgetSeconds],
  );
  return rows[0]?.next_attempt_at ?? null;
}

export async function clearLoginFailures(db: Queryable, key: Buffer): Promise<void> {
  await db.query('DELETE FROM login_throttle WHERE key_hash = $1', [key]);
}

// ---- What a person reaches ---------------------------------------------------------------------------------

export interface MembershipView {
  workspace_id: string;
  workspace_name: string;
  mode: WorkspaceMode;
  role: MemberRole;
  brands: Array<{ id: string; name: string; is_default: boolean }>;
}

/** The person's workspaces with their brands, for choosing what a key may reach. */
export async function listMembershipsWithBrands(db: Queryable, userId: string): Promise<MembershipView[]> {
  const { rows } = await db.query<MembershipView>(
    `SELECT w.id AS workspace_id, w.name AS workspace_name, w.mode, m.role,
            COALESCE((SELECT json_agg(json_build_object('id', b.id, 'name', b.name, 'is_default', b.is_default)
                                      ORDER BY b.is_default DESC, b.created_at, b.id)
                        FROM brands b WHERE b.workspace_id = w.id AND b.deleted_at IS NULL), '[]'::json) AS brands
       FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
      WHERE m.user_id = $1
      ORDER BY w.created_at, w.id`,
    [userId],
  );
  return rows;
}

/** Housekeeping: sessions past their end and failure records no longer counting or making anyone wait. */
export async function deleteExpiredSignInState(db: Queryable, forgetSeconds: number): Promise<number> {
  const sessions = await db.query('DELETE FROM user_sessions WHERE expires_at <= now()');
  const failures = await db.query(
    `DELETE FROM login_throttle WHERE last_failure_at < now() - make_interval(secs => $1) AND (next_attempt_at IS NULL OR next_attempt_at <= now())`,
    [forgetSeconds],
  );
  return (sessions.rowCount ?? 0) + (failures.rowCount ?? 0);
}

// ---- The dashboard (docs/api.md "Sessions") --------------------------------------------------------------------

/** A live session with what it reaches: every membership of its person, with the role and default brand of each. */
export interface SessionReach {
  user_id: string;
  email: string;
  reachable: Array<{ id: string; mode: WorkspaceMode; default_brand_id: string | null; role: MemberRole }>;
}

export async function findSessionReach(db: Queryable, tokenHash: Buffer): Promise<SessionReach | undefined> {
  const { rows } = await db.query<SessionReach>(
    `SELECT s.user_id, u.email,
            COALESCE((SELECT json_agg(json_build_object('id', w.id, 'mode', w.mode, 'default_brand_id',
                        (SELECT b.id FROM brands b WHERE b.workspace_id = w.id AND b.is_default), 'role', m.role)
                        ORDER BY w.created_at, w.id)
                        FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
                       WHERE m.user_id = s.user_id), '[]'::json) AS reachable
       FROM user_sessions s JOIN users u ON u.id = s.user_id
      WHERE s.token_hash = $1 AND s.expires_at > now()`,
    [tokenHash],
  );
  return rows[0];
}

export interface UserProfile {
  id: string;
  email: string;
  name: string | null;
}

export async function findUserProfile(db: Queryable, id: string): Promise<UserProfile | undefined> {
  const { rows } = await db.query<UserProfile>('SELECT id, email, name FROM users WHERE id = $1', [id]);
  return rows[0];
}

export async function setUserName(db: Queryable, id: string, name: string): Promise<void> {
  await db.query('UPDATE users SET name = $2 WHERE id = $1', [id, name]);
}

/** Ends every session of a person but one (a password changed from a session keeps that session). */
export async function deleteOtherSessions(db: Queryable, userId: string, keepHash: Buffer): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM user_sessions WHERE user_id = $1 AND token_hash <> $2', [
    userId,
    keepHash,
  ]);
  return rowCount ?? 0;
}
