// People: accounts and their passwords, signing in (with lockout after repeated failures) and browser sessions.
// Signing in answers the same way, in about the same time, whether or not the email has an account.
import { randomBytes } from 'node:crypto';
import { withTransaction, type Pool, type Queryable } from '../../db/pool.ts';
import { sha256 } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import * as workspaces from '../workspaces/workspaces.repo.ts';
import type { MemberRole } from '../workspaces/workspaces.repo.ts';
import { generatePassword, hashPassword, passwordProblem, verifyPassword } from './passwords.ts';
import * as repo from './users.repo.ts';

export class UserInputError extends Error {}

/** Five failures within 15 minutes lock the email for 15 minutes (whether or not it has an account). */
export const LOCKOUT = { maxFailures: 5, windowSeconds: 15 * 60, lockSeconds: 15 * 60 };

const EMAIL_RE = /^[^\s@]+@[^\s@]+$/;

export function isEmail(value: string): boolean {
  return value.length <= 320 && EMAIL_RE.test(value);
}

function emailHash(email: string): Buffer {
  return sha256(`login\n${email.trim().toLowerCase()}`);
}

/**
 * Creates the account if the email has none, and makes it a member of the workspace with `role` (changing the
 * role of an existing member). Returns the account and whether it was new.
 */
export async function createUser(
  pool: Pool,
  input: { email: string; workspaceId: string; role: MemberRole },
): Promise<{ userId: string; email: string; created: boolean }> {
  const email = input.email.trim();
  if (!isEmail(email)) throw new UserInputError(`"${input.email}" is not an email address.`);
  return withTransaction(pool, async (tx) => {
    if (!(await workspaces.findWorkspace(tx, input.workspaceId)))
      throw new UserInputError(`No workspace ${input.workspaceId}.`);
    const existing = await repo.findUserByEmail(tx, email);
    const userId = existing?.id ?? newId('user');
    if (!existing) await repo.insertUser(tx, userId, email);
    await workspaces.addMembership(tx, input.workspaceId, userId, input.role);
    return { userId, email: existing?.email ?? email, created: !existing };
  });
}

/** Sets a person's password and signs them out everywhere (a changed password ends every session). */
export async function setPassword(
  pool: Pool,
  email: string,
  password: string,
): Promise<{ userId: string; sessionsEnded: number }> {
  const problem = passwordProblem(password);
  if (problem) throw new UserInputError(problem);
  const user = await repo.findUserWithPassword(pool, email.trim());
  if (!user) throw new UserInputError(`No account with the email ${email}.`);
  const hash = await hashPassword(password);
  return withTransaction(pool, async (tx) => {
    await repo.setPasswordHash(tx, user.id, hash);
    return { userId: user.id, sessionsEnded: await repo.deleteUserSessions(tx, user.id) };
  });
}

/**
 * Gives an account without a password a generated one (the owner at first start, or after an upgrade from a
 * version without sign-in). Returns it to be shown once, or undefined when the account already had one.
 */
export async function ensurePassword(db: Queryable, userId: string): Promise<string | undefined> {
  if (await repo.hasPassword(db, userId)) return undefined;
  const password = generatePassword();
  return (await repo.setPasswordHashIfUnset(db, userId, await hashPassword(password))) ? password : undefined;
}

export type SignInResult =
  | { ok: true; userId: string; email: string }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'locked'; retryAfterSeconds: number };

/**
 * Checks an email and password. A locked email is refused before the password is looked at (so guessing during
 * a lock learns nothing); otherwise the password is always verified — against a stand-in hash when there is no
 * account — and a failure is counted for the email whether or not it exists.
 */
export async function signIn(db: Queryable, email: string, password: string): Promise<SignInResult> {
  const hash = emailHash(email);
  const locked = await repo.lockedUntil(db, hash);
  if (locked)
    return {
      ok: false,
      reason: 'locked',
      retryAfterSeconds: Math.max(1, Math.ceil((locked.getTime() - Date.now()) / 1000)),
    };
  const user = isEmail(email.trim()) ? await repo.findUserWithPassword(db, email.trim()) : undefined;
  const valid = await verifyPassword(password, user?.password_hash);
  if (!valid || !user) {
    const until = await repo.recordLoginFailure(db, hash, LOCKOUT);
    if (until)
      return {
        ok: false,
        reason: 'locked',
        retryAfterSeconds: Math.max(1, Math.ceil((until.getTime() - Date.now()) / 1000)),
      };
    return { ok: false, reason: 'invalid' };
  }
  await repo.clearLoginFailures(db, hash);
  return { ok: true, userId: user.id, email: user.email };
}

// ---- Sessions ----------------------------------------------------------------------------------------------

/** Starts a session; returns the cookie value (only its hash is stored). */
export async function startSession(db: Queryable, userId: string, ttlHours: number): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await repo.insertSession(db, sha256(token), userId, new Date(Date.now() + ttlHours * 3_600_000));
  return token;
}

export async function sessionUser(
  db: Queryable,
  token: string | undefined,
): Promise<{ userId: string; email: string } | undefined> {
  if (!token || token.length > 200) return undefined;
  const row = await repo.findSession(db, sha256(token));
  return row ? { userId: row.user_id, email: row.email } : undefined;
}

export async function endSession(db: Queryable, token: string): Promise<void> {
  await repo.deleteSession(db, sha256(token));
}

export const { listMembershipsWithBrands, deleteExpiredSignInState } = repo;
