// A signed-in browser as a /v1 principal (docs/api.md "Sessions"): the `herald_session` cookie the sign-in pages
// set stands for its person, with every workspace they are a member of and their role there. Scopes come from the
// role alone (src/features/workspaces/roles.ts), so the principal carries every scope and the access pipeline
// narrows it to the role in the workspace called. Looked up on every request, never cached: signing out (or out
// everywhere) ends the session's next call.
import type { FastifyRequest } from 'fastify';
import type { Config } from '../../config.ts';
import type { Queryable } from '../../db/pool.ts';
import { sha256, type SecretKeyring } from '../../lib/crypto.ts';
import { cookieName } from '../../http/forms.ts';
import type { Principal } from '../keys/authenticator.ts';
import { SCOPES } from '../keys/scopes.ts';
import { findSessionReach } from './users.repo.ts';
import { checkSessionCsrf, sessionCsrfToken, type WebSessionDeps } from './web-session.ts';

/** The header a mutating cookie call carries its CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

export interface SessionPrincipals {
  /** The session cookie's value, when the request carries one (the raw Cookie header: /v1 has no cookie plugin). */
  tokenOf(request: FastifyRequest): string | undefined;
  authenticate(token: string): Promise<Principal | undefined>;
  /** The CSRF token of the session (`POST /app/api/session` answers it). */
  csrfToken(token: string): string;
  /** A mutating call: the header matches the session's token, and the browser's Origin (when sent) is Herald's. */
  csrfValid(token: string, request: FastifyRequest): boolean;
}

export function createSessionPrincipals(deps: {
  db: Queryable;
  keyring: SecretKeyring;
  config: Pick<Config, 'publicUrl' | 'sessionTtlHours'>;
}): SessionPrincipals {
  const web: WebSessionDeps = deps;
  const name = cookieName('herald_session', deps.config.publicUrl.startsWith('https:'));
  const origin = new URL(deps.config.publicUrl).origin;
  return {
    tokenOf(request) {
      const header = request.headers.cookie;
      if (typeof header !== 'string' || !header.includes(name)) return undefined;
      // The first cookie of that name, as @fastify/cookie reads it for the sign-in pages.
      for (const pair of header.split(';')) {
        const at = pair.indexOf('=');
        if (at < 0 || pair.slice(0, at).trim() !== name) continue;
        const value = pair.slice(at + 1).trim();
        return value === '' ? undefined : value;
      }
      return undefined;
    },
    async authenticate(token) {
      if (token.length > 200) return undefined;
      const reach = await findSessionReach(deps.db, sha256(token));
      if (!reach) return undefined;
      return {
        keyId: `session:${reach.user_id}`,
        kind: 'session',
        userId: reach.user_id,
        scopes: new Set(SCOPES),
        reachable: reach.reachable,
        brandIds: null,
        profile: 'standard',
        expiresAt: null,
      };
    },
    csrfToken(token) {
      return sessionCsrfToken(web, { userId: '', email: '', token });
    },
    csrfValid(token, request) {
      const given = request.headers[CSRF_HEADER];
      const from = request.headers.origin;
      if (from !== undefined && from !== origin) return false;
      return checkSessionCsrf(web, { userId: '', email: '', token }, typeof given === 'string' ? given : undefined);
    },
  };
}
