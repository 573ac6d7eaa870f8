// OAuth clients: Dynamic Client Registration (RFC 7591) with the rules MCP asks for — redirect URIs exact,
// https or loopback only — and client authentication at the token and revocation endpoints.
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/pool.ts';
import { constantTimeEqual, sha256 } from '../../lib/crypto.ts';
import { newId } from '../../lib/ids.ts';
import { OAuthError } from './oauth-error.ts';
import * as repo from './clients.repo.ts';
import type { ClientAuthMethod, ClientRow } from './clients.repo.ts';
import { parseScopeParam } from './scope-param.ts';

export type { ClientRow };

const AUTH_METHODS: readonly ClientAuthMethod[] = ['none', 'client_secret_post', 'client_secret_basic'];
const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why a redirect URI is refused, or undefined when it is acceptable. */
export function redirectUriProblem(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `"${uri}" is not an absolute URI.`;
  }
  if (uri.length > 2000) return 'Redirect URIs may have at most 2000 characters.';
  if (url.hash || uri.includes('#')) return `"${uri}" has a fragment; redirect URIs may not.`;
  if (url.username || url.password) return `"${uri}" carries credentials.`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return `"${uri}" must use https, or http on a loopback address (127.0.0.1, [::1], localhost).`;
}

function optionalString(body: Record<string, unknown>, name: string, max: number): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > max)
    throw new OAuthError('invalid_client_metadata', `${name} must be a string of at most ${max} characters.`);
  return value;
}

function optionalHttpsUrl(body: Record<string, unknown>, name: string): string | undefined {
  const value = optionalString(body, name, 2000);
  if (value === undefined) return undefined;
  try {
    if (new URL(value).protocol === 'https:') return value;
  } catch {
    // fall through
  }
  throw new OAuthError('invalid_client_metadata', `${name} must be an https URL.`);
}

function stringList(body: Record<string, unknown>, name: string, max: number): string[] | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length > max || !value.every((v) => typeof v === 'string' && v.length <= 2000)) {
    throw new OAuthError(
      name === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata',
      `${name} must be an array of at most ${max} strings.`,
    );
  }
  return [...new Set(value as string[])];
}

export interface ClientMetadata {
  name: string;
  redirectUris: string[];
  grantTypes: string[];
  authMethod: ClientAuthMethod;
  /** Every accepted metadata field, as returned to the client. */
  metadata: Record<string, unknown>;
}

/**
 * Validates client metadata (a registration request, or a Client ID Metadata Document). Unknown fields are
 * ignored as RFC 7591 asks. Omitted `grant_types` means both authorization_code and refresh_token: access
 * tokens live an hour, and a client without refresh would have to ask its person again every hour.
 */
export function validateClientMetadata(input: unknown, defaults: { authMethod: ClientAuthMethod }): ClientMetadata {
  if (!input || typeof input !== 'object' || Array.isArray(input))
    throw new OAuthError('invalid_client_metadata', 'Send the client metadata as a JSON object.');
  const body = input as Record<string, unknown>;
  const redirectUris = stringList(body, 'redirect_uris', 20);
  if (!redirectUris || redirectUris.length === 0)
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris must list at least one redirect URI.');
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', problem);
  }
  const authMethod = (optionalString(body, 'token_endpoint_auth_method', 50) ??
    defaults.authMethod) as ClientAuthMethod;
  if (!AUTH_METHODS.includes(authMethod))
    throw new OAuthError(
      'invalid_client_metadata',
      `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}.`,
    );
  const grantTypes = stringList(body, 'grant_types', 10) ?? [...GRANT_TYPES];
  const unknownGrant = grantTypes.find((g) => !(GRANT_TYPES as readonly string[]).includes(g));
  if (unknownGrant)
    throw new OAuthError(
      'invalid_client_metadata',
      `Grant type ${unknownGrant} is not supported; use ${GRANT_TYPES.join(' and ')}.`,
    );
  if (!grantTypes.includes('authorization_code'))
    throw new OAuthError('invalid_client_metadata', 'grant_types must include authorization_code.');
  const responseTypes = stringList(body, 'response_types', 5) ?? ['code'];
  if (responseTypes.some((r) => r !== 'code'))
    throw new OAuthError('invalid_client_metadata', 'The only response type supported is "code".');
  const scope = optionalString(body, 'scope', 2000);
  if (scope !== undefined) {
    const parsed = parseScopeParam(scope);
    if ('unknown' in parsed)
      throw new OAuthError('invalid_client_metadata', `Unknown scope ${parsed.unknown.join(', ')}.`);
  }
  const name = optionalString(body, 'client_name', 200)?.trim() || new URL(redirectUris[0]!).host;
  const metadata: Record<string, unknown> = {
    client_name: name,
    redirect_uris: redirectUris,
    grant_types: grantTypes,
    response_types: responseTypes,
    token_endpoint_auth_method: authMethod,
  };
  for (const field of ['client_uri', 'logo_uri', 'tos_uri', 'policy_uri'] as const) {
    const value = optionalHttpsUrl(body, field);
    if (value !== undefined) metadata[field] = value;
  }
  for (const field of ['software_id', 'software_version'] as const) {
    const value = optionalString(body, field, 200);
    if (value !== undefined) metadata[field] = value;
  }
  if (scope !== undefined) metadata.scope = scope;
  const contacts = stringList(body, 'contacts', 10);
  if (contacts) metadata.contacts = contacts;
  return { name, redirectUris, grantTypes, authMethod, metadata };
}

/** RFC 7591 registration: stores the client; a confidential one gets a secret, shown once. */
export async function registerClient(db: Queryable, input: unknown, now: Date): Promise<Record<string, unknown>> {
  // RFC 7591 §2: without token_endpoint_auth_method the default is client_secret_basic.
  const client = validateClientMetadata(input, { authMethod: 'client_secret_basic' });
  const secret = client.authMethod === 'none' ? undefined : `hcs_${randomBytes(32).toString('base64url')}`;
  const row = await repo.insertClient(db, {
    id: newId('mcpc'),
    kind: 'dcr',
    name: client.name,
    redirect_uris: client.redirectUris,
    grant_types: client.grantTypes,
    token_endpoint_auth_method: client.authMethod,
    secret_hash: secret ? sha256(secret) : null,
    metadata: client.metadata,
  });
  return {
    client_id: row.id,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    ...client.metadata,
  };
}

function decodeBasic(header: string): { id: string; secret: string } | undefined {
  const match = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(header);
  if (!match) return undefined;
  const text = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) return undefined;
  try {
    // RFC 6749 §2.3.1: both parts are form-urlencoded before being joined.
    return {
      id: decodeURIComponent(text.slice(0, colon).replace(/\+/g, ' ')),
      secret: decodeURIComponent(text.slice(colon + 1).replace(/\+/g, ' ')),
    };
  } catch {
    return undefined;
  }
}

/**
 * Authenticates the client of a token or revocation request by the method it registered: a public client names
 * itself with `client_id`; a confidential one also proves its secret (Basic header or `client_secret` field).
 */
export async function authenticateClient(
  request: { headers: { authorization?: string | undefined } },
  form: { client_id?: string; client_secret?: string },
  findClient: (id: string) => Promise<ClientRow | undefined>,
): Promise<ClientRow> {
  const header = request.headers.authorization;
  const basic = typeof header === 'string' ? decodeBasic(header) : undefined;
  if (typeof header === 'string' && /^Basic /i.test(header) && !basic)
    throw new OAuthError('invalid_client', 'The Basic credentials are malformed.', {
      'www-authenticate': 'Basic realm="herald"',
    });
  if (basic && form.client_secret !== undefined)
    throw new OAuthError('invalid_request', 'Use one client authentication method, not two.');
  if (basic && form.client_id !== undefined && form.client_id !== basic.id)
    throw new OAuthError('invalid_request', 'client_id differs from the Basic credentials.');
  const id = basic?.id ?? form.client_id;
  if (!id) throw new OAuthError('invalid_client', 'Name the client with client_id (or Basic credentials).');
  const client = id.length <= 2000 ? await findClient(id) : undefined;
  const challenge = basic ? { 'www-authenticate': 'Basic realm="herald"' } : undefined;
  if (!client) throw new OAuthError('invalid_client', 'Unknown client; register it first.', challenge);
  if (client.token_endpoint_auth_method === 'none') return client;
  const secret = basic?.secret ?? form.client_secret;
  if (!secret || !client.secret_hash || !constantTimeEqual(sha256(secret), client.secret_hash)) {
    throw new OAuthError('invalid_client', 'The client could not be authenticated.', challenge);
  }
  return client;
}

export const { findClient, deleteUnusedClients } = repo;
