// What each membership role may do in its workspace, in one place (docs/api.md "Roles"). A key or OAuth grant is
// always read through its owner's CURRENT role: the scopes it may use in a workspace are its own scopes that the
// role allows there. So a key made while its owner was admin loses the admin-only scopes when they are demoted
// (within the key cache's one second), and gets them back if promoted again. Creating a key or a grant beyond the
// role is refused outright, so nobody is handed a credential that claims more than it can do.
import { AppError } from '../../app/errors.ts';
import { SCOPES, type Scope } from '../keys/scopes.ts';
import type { MemberRole } from './workspaces.repo.ts';

/**
 * The scopes a member may not use: the ones that change how the workspace reaches the outside world (connecting
 * social accounts, sending its events to a URL) or that decide on other people's posts (approving them, which
 * would let a member wave through their own work past the approvals policy), or that set the rules every post of
 * a brand is held to (brand settings: banned terms, required terms, signatures), or that manage keys and people
 * (the same line as ROLE_ACTIONS below draws for people).
 */
const ADMIN_ONLY_SCOPES: readonly Scope[] = [
  'connections:write',
  'webhooks:manage',
  'approvals:write',
  'brand:write',
  'keys:manage',
  'members:manage',
];

export const ROLE_SCOPES: Readonly<Record<MemberRole, ReadonlySet<Scope>>> = {
  owner: new Set(SCOPES),
  admin: new Set(SCOPES),
  member: new Set(SCOPES.filter((s) => !ADMIN_ONLY_SCOPES.includes(s))),
};

/**
 * Administrative actions that are not API scopes (they are done by people, not keys). Managing keys, members and
 * the approvals policy is for admins and owners; making or unmaking an owner is for owners only. The CLI runs as
 * the server's operator and is not bound by this table, except that the keys it makes never exceed a role.
 */
export type RoleAction = 'keys:manage' | 'members:manage' | 'owners:manage' | 'approvals:policy';

const ROLE_ACTIONS: Readonly<Record<MemberRole, ReadonlySet<RoleAction>>> = {
  owner: new Set(['keys:manage', 'members:manage', 'owners:manage', 'approvals:policy']),
  admin: new Set(['keys:manage', 'members:manage', 'approvals:policy']),
  member: new Set(),
};

export function roleMay(role: MemberRole, action: RoleAction): boolean {
  return ROLE_ACTIONS[role].has(action);
}

export function roleAllows(role: MemberRole, scope: string): boolean {
  return (ROLE_SCOPES[role] as ReadonlySet<string>).has(scope);
}

/** The scopes among `scopes` that `role` may not carry (empty when all are allowed). */
export function scopesBeyondRole(role: MemberRole, scopes: Iterable<string>): string[] {
  return [...scopes].filter((s) => !roleAllows(role, s));
}

/**
 * The request-time check every face shares (REST access, MCP dispatch): the call needs one of `needed`, which the
 * key must carry AND the caller's role in the workspace must allow. The key's own lack is checked before this.
 */
export function assertRoleAllows(
  role: MemberRole,
  needed: readonly string[],
  keyScopes: ReadonlySet<string>,
  what = 'This endpoint',
): void {
  if (needed.length === 0 || needed.some((s) => keyScopes.has(s) && roleAllows(role, s))) return;
  throw new AppError(
    'PUBLIC_API_SCOPE_FORBIDDEN',
    `${what} needs the ${needed.map((s) => `\`${s}\``).join(' or ')} scope, which the ${role} role does not allow in this workspace (only an admin or owner may use it).`,
  );
}
