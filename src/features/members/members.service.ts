// The members API (docs/api.md "Members and invites"): who is in a workspace with which role, invites as
// single-use links, and accepting one. Only an owner makes, unmakes or removes an owner (roles.ts "owners:manage"),
// and a workspace always keeps one owner. An invite answers its link once, for the inviter to pass on, and emails
// it to the invitee as well when an SMTP server is configured (members.email.ts).
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/pool.ts';
import { AppError, notFound, validationFailed } from '../../app/errors.ts';
import { decodeCursor, encodeCursor } from '../../app/cursor.ts';
import { sha256 } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import type { Mailer } from '../../lib/mailer.ts';
import * as workspaces from '../workspaces/workspaces.repo.ts';
import type { MemberRole } from '../workspaces/workspaces.repo.ts';
import { roleMay } from '../workspaces/roles.ts';
import { sendInviteEmail, type InviteEmailDelivery } from './members.email.ts';
import * as repo from './members.repo.ts';
import type { InviteRow, MemberRow } from './members.repo.ts';

/** How long an invite link works. */
export const INVITE_TTL_DAYS = 7;

export const INVITE_STATUSES = ['pending', 'accepted', 'expired'] as const;

export interface MembersContext {
  db: Queryable;
  workspaceId: string;
  callerId: string;
  callerRole: MemberRole;
  now: Date;
}

type Page = { items: unknown[]; next_cursor: string | null; has_more: boolean };

function pageOf<T extends { created_at: Date }>(
  rows: T[],
  limit: number,
  idOf: (row: T) => string,
  json: (row: T) => unknown,
  binding: string,
): Page {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const hasMore = rows.length > limit && last !== undefined;
  return {
    items: page.map(json),
    next_cursor: hasMore ? encodeCursor({ value: last.created_at.toISOString(), id: idOf(last) }, binding) : null,
    has_more: hasMore,
  };
}

const afterOf = (cursor: string | undefined, binding: string) => {
  const at = cursor ? decodeCursor(cursor, binding) : undefined;
  return at?.value ? { createdAt: new Date(at.value), id: at.id } : undefined;
};

export function memberJson(m: MemberRow): Record<string, unknown> {
  return {
    id: m.user_id,
    object: 'member',
    user: { id: m.user_id, email: m.email, name: m.name },
    role: m.role,
    created_at: m.created_at.toISOString(),
  };
}

export function inviteJson(i: InviteRow, now: Date, url?: string): Record<string, unknown> {
  const status = i.accepted_at ? 'accepted' : i.expires_at.getTime() <= now.getTime() ? 'expired' : 'pending';
  return {
    id: i.id,
    object: 'invite',
    email: i.email,
    role: i.role,
    status,
    invited_by: i.invited_by,
    created_at: i.created_at.toISOString(),
    expires_at: i.expires_at.toISOString(),
    accepted_at: i.accepted_at?.toISOString() ?? null,
    ...(url === undefined ? {} : { url }),
  };
}

export async function listMembers(ctx: MembersContext, q: { limit?: number; cursor?: string }): Promise<Page> {
  const limit = q.limit ?? 20;
  const rows = await repo.listMembers(ctx.db, ctx.workspaceId, afterOf(q.cursor, 'members'), limit + 1);
  return pageOf(rows, limit, (m) => m.user_id, memberJson, 'members');
}

export async function getMember(ctx: MembersContext, userId: string): Promise<MemberRow> {
  const member = await repo.findMember(ctx.db, ctx.workspaceId, userId);
  if (!member) throw notFound('member');
  return member;
}

/** Owners are made and unmade by owners; the last owner stays one. */
async function checkOwnerChange(ctx: MembersContext, member: MemberRow, next: MemberRole | null): Promise<void> {
  const touchesOwner = member.role === 'owner' || next === 'owner';
  if (!touchesOwner) return;
  if (!roleMay(ctx.callerRole, 'owners:manage'))
    throw new AppError('PUBLIC_API_SCOPE_FORBIDDEN', 'Only an owner may make, unmake or remove an owner.');
  if (member.role === 'owner' && next !== 'owner') {
    const owners = await workspaces.lockOwners(ctx.db, ctx.workspaceId);
    if (owners.length <= 1)
      throw new AppError(
        'PUBLIC_API_STATE_CONFLICT',
        'This is the last owner of the workspace: make someone else an owner first.',
      );
  }
}

export async function changeRole(ctx: MembersContext, userId: string, role: MemberRole): Promise<MemberRow> {
  const member = await getMember(ctx, userId);
  if (member.role === role) return member;
  await checkOwnerChange(ctx, member, role);
  await workspaces.setMembershipRole(ctx.db, ctx.workspaceId, userId, role);
  return { ...member, role };
}

/**
 * Removes a person from the workspace. Their keys and sessions stop reaching it at once (both are read through the
 * membership at every request; a key's cache holds it for at most a second).
 */
export async function removeMember(ctx: MembersContext, userId: string): Promise<MemberRow> {
  const member = await getMember(ctx, userId);
  await checkOwnerChange(ctx, member, null);
  await workspaces.deleteMembership(ctx.db, ctx.workspaceId, userId);
  return member;
}

export async function listInvites(ctx: MembersContext, q: { limit?: number; cursor?: string }): Promise<Page> {
  const limit = q.limit ?? 20;
  const rows = await repo.listInvites(ctx.db, ctx.workspaceId, afterOf(q.cursor, 'invites'), limit + 1);
  return pageOf(
    rows,
    limit,
    (i) => i.id,
    (i) => inviteJson(i, ctx.now),
    'invites',
  );
}

export async function getInvite(ctx: MembersContext, id: string): Promise<InviteRow> {
  const invite = await repo.findInvite(ctx.db, ctx.workspaceId, id);
  if (!invite) throw notFound('invite');
  return invite;
}

/** What making an invite needs besides the request: where links point, and how the invitee is emailed. */
export interface InviteDeps {
  publicUrl: string;
  /** Unset when no SMTP server is configured: the link is then only answered. */
  mailer: Mailer | undefined;
  /** Where a failed email is reported (the request's log); it is never given the link. */
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * Makes an invite; the link (holding the only copy of its token) is in this answer and in the invitee's email only.
 * The email is sent before the answer is stored, so a replay of the request answers what became of it and never
 * sends it again.
 */
export async function createInvite(
  ctx: MembersContext,
  input: { email: string; role: MemberRole },
  deps: InviteDeps,
): Promise<Record<string, unknown>> {
  if (input.role === 'owner' && !roleMay(ctx.callerRole, 'owners:manage'))
    throw new AppError('PUBLIC_API_SCOPE_FORBIDDEN', 'Only an owner may invite an owner.');
  const email = input.email.trim();
  if (!/^[^\s@]+@[^\s@]+$/.test(email))
    throw validationFailed([{ path: '/email', rule: 'email', message: `"${input.email}" is not an email address.` }]);
  if (await repo.isMemberByEmail(ctx.db, ctx.workspaceId, email))
    throw validationFailed([{ path: '/email', rule: 'already_member', message: `${email} is already a member.` }]);
  const token = randomBytes(32).toString('base64url');
  const invite = await repo.insertInvite(ctx.db, {
    id: newId('inv'),
    workspaceId: ctx.workspaceId,
    email,
    role: input.role,
    tokenHash: sha256(token),
    invitedBy: ctx.callerId,
    expiresAt: new Date(ctx.now.getTime() + INVITE_TTL_DAYS * 86_400_000),
  });
  const url = `${deps.publicUrl.replace(/\/$/, '')}/app/invite/${token}`;
  let emailDelivery: InviteEmailDelivery = { status: 'not_configured', error: null };
  if (deps.mailer) {
    const facts = {
      to: email,
      inviter: await repo.findMember(ctx.db, ctx.workspaceId, ctx.callerId),
      workspaceName: (await workspaces.findWorkspace(ctx.db, ctx.workspaceId))?.name ?? '',
      role: input.role,
      url,
      expiresAt: invite.expires_at,
    };
    emailDelivery = await sendInviteEmail(deps.mailer, facts, deps.warn, invite.id);
  }
  return { ...inviteJson(invite, ctx.now, url), email_delivery: emailDelivery };
}

export async function cancelInvite(ctx: MembersContext, id: string): Promise<Record<string, unknown>> {
  const invite = await getInvite(ctx, id);
  await repo.deleteInvite(ctx.db, ctx.workspaceId, id);
  return { ...inviteJson(invite, ctx.now), deleted: true };
}

/** The live invite a link names, locked (used once); every other case is the same 410, saying nothing more. */
export async function claimInvite(db: Queryable, token: string, now: Date): Promise<InviteRow> {
  const invite = token.length <= 200 ? await repo.lockInviteByToken(db, sha256(token)) : undefined;
  if (!invite || invite.accepted_at || invite.expires_at.getTime() <= now.getTime())
    throw new AppError('PUBLIC_API_INVITE_INVALID', 'This invite link is unknown, already used or expired.');
  return invite;
}

export async function completeInvite(db: Queryable, invite: InviteRow, userId: string): Promise<void> {
  await workspaces.addMembershipIfAbsent(db, invite.workspace_id, userId, invite.role);
  await repo.markInviteAccepted(db, invite.id, userId);
}
