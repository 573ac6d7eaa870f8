// People: accounts and their passwords, signing in (throttled by email and client address after repeated
// failures) and browser sessions. Signing in answers the same way, in about the same time, whether or not the
// email has an account.
import { randomBytes } from 'node:crypto';
import { withTransaction, type Pool, type Queryable } from '../../db/pool.ts';
import { sha256 } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import * as workspaces from '../workspaces/workspaces.repo.ts';
import type { MemberRole } from '../workspaces/workspaces.repo.ts';
import { generatePassword, hashPassword, passwordProblem, verifyPassword } from './passwords.ts';
import * as repo from './users.repo.ts';

export class UserInputError extends Error {}

/**
 * Failed sign-ins make the address they come from wait, never the account: a lock on the email alone would be a
 * lock any outsider controls. Per (email, address) pair, the 5th failure and each one after it earn a wait that
 * doubles (2 s, 4 s, … up to 15 minutes); per address across every email, the same from the 10th failure. A key
 * quiet for an hour starts again from zero.
 */
export const SIGN_IN_THROTTLE = {
  pair: { freeFailures: 5, baseDelaySeconds: 2, maxDelaySeconds: 15 * 60, forgetSeconds: 60 * 60 },
  address: { freeFailures: 10, baseDelaySeconds: 2, maxDelaySeconds: 15 * 60, forgetSeconds: 60 * 60 },
} as const;

const EMAIL_RE = /^[^\s@]+@[^\s@]+$/;

export function isEmail(value: string): boolean {
  return value.length <= 320 && EMAIL_RE.test(value);
}

/** The throttle's keys: the (email, address) pair and the address alone, hashed (no email is stored in clear). */
function throttleKeys(email: string, address: string): { pair: Buffer; address: Buffer } {
  return {
    pair: sha256(`login\n${address}\n${email.trim().toLowerCase()}`),
    address: sha256(`login-address\n${address}`),
  };
}

const secondsUntil = (until: Date) => Math.max(1, Math.ceil((until.getTime() - Date.now()) / 1000));

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
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

/**
 * Checks an email and password from a client address. While the pair or the address must wait, the attempt is
 * refused before the password is looked at (so guessing during a wait learns nothing); otherwise the password is
 * always verified, against a stand-in hash when there is no account, and a failure is counted for the pair and
 * the address whether or not the email exists. A success clears the pair only: an attacker's own account cannot
 * reset their address's count.
 */
export async function signIn(db: Queryable, email: string, password: string, address: string): Promise<SignInResult> {
  const keys = throttleKeys(email, address);
  const waiting = await repo.throttledUntil(db, [keys.pair, keys.address]);
  if (waiting) return { ok: false, reason: 'throttled', retryAfterSeconds: secondsUntil(waiting) };
  const user = isEmail(email.trim()) ? await repo.findUserWithPassword(db, email.trim()) : undefined;
  const valid = await verifyPassword(password, user?.password_hash);
  if (!valid || !user) {
    const waits = [
      await repo.recordLoginFailure(db, keys.pair, SIGN_IN_THROTTLE.pair),
      await repo.recordLoginFailure(db, keys.address, SIGN_IN_THROTTLE.address),
    ].filter((until): until is Date => until !== null);
    if (waits.length > 0)
      return {
        ok: false,
        reason: 'throttled',
        retryAfterSeconds: secondsUntil(new Date(Math.max(...waits.map((w) => w.getTime())))),
      };
    return { ok: false, reason: 'invalid' };
  }
  await repo.clearLoginFailures(db, keys.pair);
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
