// Grants: what a person consented to, turned into API keys. An authorization code becomes a grant with its first
// key and refresh token; a refresh replaces both in one transaction (the old key stops working); a refresh token
// presented again after its rotation revokes the grant, except within a short grace in which the same new pair
// is returned (clients race their own refreshes). Decisions about time use the injected clock.
import { randomBytes } from 'node:crypto';
import { withTransaction, type Pool, type PoolClient } from '../../db/pool.ts';
import { createKey, KeyInputError, rolesOf } from '../keys/keys.service.ts';
import { roleAllows, scopesBeyondRole } from '../workspaces/roles.ts';
import { revokeKeyOnly } from '../keys/keys.repo.ts';
import type { Scope } from '../keys/scopes.ts';
import type { Clock } from '../../lib/clock.ts';
import { decrypt, encrypt, sha256, type SecretKeyring } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import type { ClientRow } from './clients.service.ts';
import { OAuthError } from './oauth-error.ts';
import * as repo from './grants.repo.ts';
import { formatScopes, isOAuthScope, parseScopeParam } from './scope-param.ts';

export const CODE_TTL_MS = 10 * 60_000;
export const REFRESH_GRACE_MS = 10_000;
const PURPOSE = 'oauth-refresh-replacement';

export interface GrantsDeps {
  pool: Pool;
  keyring: SecretKeyring;
  clock: Clock;
  accessTokenTtlSeconds: number;
  grantTtlDays: number;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

export interface CodeRequest {
  client: ClientRow;
  userId: string;
  workspaceId: string;
  brandIds: string[] | null;
  scopes: Scope[];
  redirectUri: string;
  codeChallenge: string;
  resource: string;
}

const secretToken = (prefix: string) => `${prefix}_${randomBytes(32).toString('base64url')}`;

/** PKCE S256: BASE64URL(SHA256(verifier)) must equal the challenge sent to /authorize. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  return /^[A-Za-z0-9._~-]{43,128}$/.test(verifier) && sha256(verifier).toString('base64url') === challenge;
}

export function createGrantsService(deps: GrantsDeps) {
  const now = () => deps.clock.now();

  /** A key for the grant, living the configured time but never past the grant. */
  async function issueKey(
    tx: PoolClient,
    client: ClientRow,
    grant: Omit<repo.GrantRow, 'revoked_at'>,
    scopes: string[],
  ) {
    const at = now();
    const expiresAt = new Date(Math.min(at.getTime() + deps.accessTokenTtlSeconds * 1000, grant.expires_at.getTime()));
    // Each key carries only what the person's current role allows: a demotion narrows the next key, a promotion
    // back restores the grant's scopes (the grant keeps what was consented).
    const role = (await rolesOf(tx, grant.user_id, [grant.workspace_id])).get(grant.workspace_id);
    const allowed = role ? scopes.filter((s) => roleAllows(role, s)) : scopes;
    if (allowed.length === 0)
      throw new OAuthError('invalid_grant', 'Your role in this workspace no longer allows any scope of this grant.');
    try {
      return await createKey(tx, {
        userId: grant.user_id,
        name: `OAuth: ${client.name}`.slice(0, 200),
        scopes: allowed as Scope[],
        workspaceIds: [grant.workspace_id],
        brandIds: grant.brand_ids,
        expiresAt,
        now: at,
        grantId: grant.id,
      });
    } catch (error) {
      // The person left the workspace since consenting, or the grant ends now.
      if (error instanceof KeyInputError)
        throw new OAuthError('invalid_grant', 'This grant no longer applies; ask the person to connect again.');
      throw error;
    }
  }

  async function tokenPair(
    tx: PoolClient,
    client: ClientRow,
    grant: Omit<repo.GrantRow, 'revoked_at'>,
    scopes: string[],
  ): Promise<{ response: TokenResponse; keyId: string }> {
    const { row, key } = await issueKey(tx, client, grant, scopes);
    const response: TokenResponse = {
      access_token: key,
      token_type: 'Bearer',
      expires_in: Math.max(1, Math.round((row.expires_at!.getTime() - now().getTime()) / 1000)),
      scope: formatScopes(row.scopes),
    };
    if (client.grant_types.includes('refresh_token')) {
      const refresh = secretToken('hrt');
      await repo.insertRefreshToken(tx, sha256(refresh), grant.id, row.id, now());
      response.refresh_token = refresh;
    }
    return { response, keyId: row.id };
  }

  /**
   * Runs `fn` in a transaction that commits even when the answer is an OAuth error: revoking a grant because a
   * code or refresh token was replayed must stick although the request itself fails.
   */
  async function decide<T>(fn: (tx: PoolClient) => Promise<T | OAuthError>): Promise<T> {
    const outcome = await withTransaction(deps.pool, fn);
    if (outcome instanceof OAuthError) throw outcome;
    return outcome;
  }

  return {
    /** After consent: a single-use code, valid 10 minutes. */
    async issueCode(input: CodeRequest): Promise<string> {
      // The consent page offers only what the role allows; this holds whatever the form posted.
      const role = (await rolesOf(deps.pool, input.userId, [input.workspaceId])).get(input.workspaceId);
      if (!role) throw new OAuthError('access_denied', 'You are not a member of that workspace.');
      const beyond = scopesBeyondRole(role, input.scopes);
      if (beyond.length > 0)
        throw new OAuthError('invalid_scope', `A ${role} of this workspace may not grant ${beyond.join(', ')}.`);
      const administrative = input.scopes.filter((s) => !isOAuthScope(s));
      if (administrative.length > 0)
        throw new OAuthError('invalid_scope', `${administrative.join(', ')} cannot be granted over OAuth.`);
      const code = secretToken('hac');
      await repo.insertCode(deps.pool, sha256(code), {
        client_id: input.client.id,
        user_id: input.userId,
        workspace_id: input.workspaceId,
        brand_ids: input.brandIds,
        scopes: input.scopes,
        redirect_uri: input.redirectUri,
        code_challenge: input.codeChallenge,
        resource: input.resource,
        expires_at: new Date(now().getTime() + CODE_TTL_MS),
      });
      return code;
    },

    async exchangeCode(
      client: ClientRow,
      p: { code: string; redirectUri?: string; codeVerifier?: string; resource?: string },
    ): Promise<TokenResponse> {
      if (!p.codeVerifier) throw new OAuthError('invalid_request', 'code_verifier is required (PKCE).');
      if (!p.redirectUri) throw new OAuthError('invalid_request', 'redirect_uri is required.');
      if (!p.resource)
        throw new OAuthError(
          'invalid_request',
          'resource is required (RFC 8707): the MCP server URL the token is for.',
        );
      const hash = sha256(p.code);
      return decide(async (tx) => {
        const code = await repo.lockCode(tx, hash);
        if (!code || code.client_id !== client.id)
          return new OAuthError('invalid_grant', 'Unknown authorization code.');
        if (code.used_at) {
          // RFC 9700 §4.5: a replayed code may be an attacker's; end what the first exchange produced.
          if (code.grant_id) await repo.revokeGrant(tx, code.grant_id, 'code_reused');
          return new OAuthError(
            'invalid_grant',
            'This authorization code was already used; its grant has been revoked.',
          );
        }
        if (code.expires_at.getTime() <= now().getTime())
          return new OAuthError('invalid_grant', 'This authorization code has expired; start the authorization again.');
        if (p.redirectUri !== code.redirect_uri)
          return new OAuthError('invalid_grant', 'redirect_uri differs from the one of the authorization request.');
        if (!pkceMatches(p.codeVerifier!, code.code_challenge))
          return new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge.');
        if (p.resource !== code.resource)
          return new OAuthError('invalid_target', `resource differs from the one authorized (${code.resource}).`);
        const at = now();
        const grant = {
          id: newId('grant'),
          client_id: client.id,
          user_id: code.user_id,
          workspace_id: code.workspace_id,
          brand_ids: code.brand_ids,
          scopes: code.scopes,
          resource: code.resource,
          created_at: at,
          expires_at: new Date(at.getTime() + deps.grantTtlDays * 86_400_000),
        };
        await repo.insertGrant(tx, grant);
        await repo.markCodeUsed(tx, hash, grant.id, at);
        return (await tokenPair(tx, client, grant, code.scopes)).response;
      });
    },

    async refresh(
      client: ClientRow,
      p: { refreshToken: string; scope?: string; resource?: string },
    ): Promise<TokenResponse> {
      if (!client.grant_types.includes('refresh_token'))
        throw new OAuthError('unauthorized_client', 'This client is not registered for the refresh_token grant.');
      const hash = sha256(p.refreshToken);
      return decide(async (tx) => {
        const token = await repo.lockRefreshToken(tx, hash);
        const grant = token ? await repo.lockGrant(tx, token.grant_id) : undefined;
        if (!token || !grant || grant.client_id !== client.id)
          return new OAuthError('invalid_grant', 'Unknown refresh token.');
        if (grant.revoked_at)
          return new OAuthError('invalid_grant', 'This grant was revoked; ask the person to connect again.');
        if (grant.expires_at.getTime() <= now().getTime())
          return new OAuthError('invalid_grant', 'This grant has expired; ask the person to connect again.');
        if (token.rotated_at) {
          const inGrace = now().getTime() - token.rotated_at.getTime() <= REFRESH_GRACE_MS;
          if (
            inGrace &&
            token.replacement &&
            token.replaced_by &&
            (await repo.isCurrentRefreshToken(tx, token.replaced_by))
          ) {
            return JSON.parse(decrypt(deps.keyring, PURPOSE, token.replacement).toString('utf8')) as TokenResponse;
          }
          await repo.revokeGrant(tx, grant.id, 'refresh_token_reused');
          return new OAuthError('invalid_grant', 'This refresh token was already used; the grant has been revoked.');
        }
        if (token.key_revoked_at) {
          await repo.revokeGrant(tx, grant.id, 'key_revoked');
          return new OAuthError('invalid_grant', 'This grant was revoked; ask the person to connect again.');
        }
        if (p.resource !== undefined && p.resource !== grant.resource)
          return new OAuthError('invalid_target', `resource differs from the one authorized (${grant.resource}).`);
        let scopes = grant.scopes;
        if (p.scope !== undefined) {
          const parsed = parseScopeParam(p.scope);
          const wider = 'unknown' in parsed ? parsed.unknown : parsed.scopes.filter((s) => !grant.scopes.includes(s));
          if (wider.length > 0)
            return new OAuthError('invalid_scope', `The grant does not include ${wider.join(', ')}.`);
          if ('scopes' in parsed && parsed.scopes.length > 0) scopes = parsed.scopes;
        }
        await repo.markRotated(tx, hash, now());
        const { response } = await tokenPair(tx, client, grant, scopes);
        await revokeKeyOnly(tx, token.key_id);
        await repo.storeReplacement(
          tx,
          hash,
          sha256(response.refresh_token!),
          encrypt(deps.keyring, PURPOSE, JSON.stringify(response)),
        );
        return response;
      });
    },

    /** RFC 7009: a refresh token or access token of this client ends its grant; anything else is ignored. */
    async revoke(client: ClientRow, token: string): Promise<void> {
      const hash = sha256(token);
      const owner =
        (await repo.findGrantOfRefreshToken(deps.pool, hash)) ?? (await repo.findGrantOfKey(deps.pool, hash));
      if (!owner || owner.client_id !== client.id) return;
      await withTransaction(deps.pool, (tx) => repo.revokeGrant(tx, owner.grant_id, 'revoked_by_client'));
    },
  };
}

export type GrantsService = ReturnType<typeof createGrantsService>;
