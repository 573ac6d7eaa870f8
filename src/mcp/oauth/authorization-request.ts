// The authorization request (GET /oauth/authorize) checked in the order OAuth 2.1 §4.1.2.1 requires: first the
// client and redirect URI (problems there are shown to the person, never redirected), then everything else
// (problems there go back to the client's redirect URI). Between the consent page and its form post, the
// checked request travels signed, bound to the signed-in person, so it cannot be altered.
import type { Scope } from '../../features/keys/scopes.ts';
import { hmac, verifyHmac, type SecretKeyring } from '../../lib/crypto.ts';
import type { ClientRow } from '../../features/oauth/clients.service.ts';
import { ClientDocumentError } from '../../features/oauth/client-documents.ts';
import { acceptedResource, type AuthServerUrls } from './metadata.ts';
import { parseScopeParam } from '../../features/oauth/scope-param.ts';

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  state: string | undefined;
  scopes: Scope[];
  codeChallenge: string;
  resource: string;
}

export type ParsedAuthorization =
  /** Shown to the person: the client cannot be trusted with a redirect. */
  | { kind: 'fatal'; message: string }
  /** Sent back to the client's redirect URI. */
  | { kind: 'redirect_error'; redirectUri: string; state: string | undefined; error: string; description: string }
  | { kind: 'ok'; request: AuthorizationRequest; client: ClientRow };

const PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'state',
  'scope',
  'code_challenge',
  'code_challenge_method',
  'resource',
] as const;

export async function parseAuthorizationRequest(
  query: Record<string, string | string[] | undefined>,
  /** `findClient` resolves Client ID Metadata Documents too (and may throw ClientDocumentError). */
  deps: {
    urls: AuthServerUrls;
    findClient(id: string): Promise<ClientRow | undefined>;
    defaultScopes: readonly Scope[];
  },
): Promise<ParsedAuthorization> {
  const value = (name: (typeof PARAMS)[number]) => {
    const v = query[name];
    return Array.isArray(v) ? null : v; // null: repeated, which OAuth forbids
  };
  const clientId = value('client_id');
  if (!clientId)
    return { kind: 'fatal', message: 'The application did not say who it is (client_id is missing or repeated).' };
  let client: ClientRow | undefined;
  try {
    client = clientId.length <= 2000 ? await deps.findClient(clientId) : undefined;
  } catch (error) {
    if (error instanceof ClientDocumentError) return { kind: 'fatal', message: error.message };
    throw error;
  }
  if (!client)
    return { kind: 'fatal', message: 'The application is not registered with this Herald (unknown client_id).' };
  const redirectUri = value('redirect_uri');
  if (!redirectUri || !client.redirect_uris.includes(redirectUri)) {
    return {
      kind: 'fatal',
      message:
        'The application sent a redirect address it did not register (redirect_uri missing or not an exact match).',
    };
  }
  const state = value('state');
  const fail = (error: string, description: string): ParsedAuthorization => ({
    kind: 'redirect_error',
    redirectUri,
    state: state ?? undefined,
    error,
    description,
  });
  if (state === null) return fail('invalid_request', 'state is repeated.');
  for (const name of PARAMS) if (value(name) === null) return fail('invalid_request', `${name} is repeated.`);
  if (value('response_type') !== 'code')
    return fail('unsupported_response_type', 'Only response_type=code is supported.');
  const challenge = value('code_challenge');
  if (!challenge) return fail('invalid_request', 'code_challenge is required (PKCE with S256).');
  if (value('code_challenge_method') !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256.');
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge))
    return fail(
      'invalid_request',
      'code_challenge must be the base64url SHA-256 of the code verifier (43 characters).',
    );
  const resourceParam = value('resource');
  if (!resourceParam) return fail('invalid_request', `resource is required (RFC 8707): ${deps.urls.mcpResource}`);
  const resource = acceptedResource(deps.urls, resourceParam);
  if (!resource) return fail('invalid_target', `This server issues tokens only for ${deps.urls.mcpResource}.`);
  const scopeParam = value('scope');
  let scopes: Scope[] = [...deps.defaultScopes];
  if (scopeParam) {
    const parsed = parseScopeParam(scopeParam);
    if ('unknown' in parsed)
      return fail(
        'invalid_scope',
        `Unknown scope ${parsed.unknown.join(', ')}; see scopes_supported in ${deps.urls.issuer}/.well-known/oauth-authorization-server.`,
      );
    if (parsed.scopes.length > 0) scopes = parsed.scopes;
  } else if (typeof client.metadata.scope === 'string') {
    const registered = parseScopeParam(client.metadata.scope);
    if ('scopes' in registered && registered.scopes.length > 0) scopes = registered.scopes;
  }
  return {
    kind: 'ok',
    client,
    request: { clientId, redirectUri, state: state ?? undefined, scopes, codeChallenge: challenge, resource },
  };
}

/** The redirect back to the client: `code` or `error`, with `state` echoed and `iss` (RFC 9207). */
export function clientRedirect(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  return url.href;
}

// ---- The request between the consent page and its form post ------------------------------------------------

const PURPOSE = 'oauth-consent';
const CONSENT_TTL_MS = 30 * 60_000;

export function sealRequest(keyring: SecretKeyring, request: AuthorizationRequest, userId: string, now: Date): string {
  const payload = Buffer.from(JSON.stringify({ r: request, u: userId, e: now.getTime() + CONSENT_TTL_MS })).toString(
    'base64url',
  );
  return `${payload}.${hmac(keyring, PURPOSE, payload)}`;
}

/** The request sealed for this person, if the seal is intact and not older than 30 minutes. */
export function openRequest(
  keyring: SecretKeyring,
  sealed: string | undefined,
  userId: string,
  now: Date,
): AuthorizationRequest | undefined {
  if (!sealed || sealed.length > 20_000) return undefined;
  const [payload, signature] = sealed.split('.');
  if (!payload || !signature || !verifyHmac(keyring, PURPOSE, payload, signature)) return undefined;
  const data = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
    r: AuthorizationRequest;
    u: string;
    e: number;
  };
  if (data.u !== userId || data.e < now.getTime()) return undefined;
  return data.r;
}
