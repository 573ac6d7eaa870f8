// Discovery: RFC 8414 authorization server metadata and RFC 9728 protected resource metadata (for /mcp, and at
// the root for Herald as a whole), plus the addresses and resource identifiers they advertise.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { OAUTH_SCOPES } from '../../features/oauth/scope-param.ts';

export interface AuthServerUrls {
  issuer: string;
  /** The canonical URI of the MCP server (RFC 8707 resource). */
  mcpResource: string;
  /** Where /mcp's protected resource metadata lives (sent in WWW-Authenticate). */
  resourceMetadataUrl: string;
  authorize: string;
  token: string;
  register: string;
  revoke: string;
}

export function authServerUrls(publicUrl: string): AuthServerUrls {
  return {
    issuer: publicUrl,
    mcpResource: `${publicUrl}/mcp`,
    resourceMetadataUrl: `${publicUrl}/.well-known/oauth-protected-resource/mcp`,
    authorize: `${publicUrl}/oauth/authorize`,
    token: `${publicUrl}/oauth/token`,
    register: `${publicUrl}/oauth/register`,
    revoke: `${publicUrl}/oauth/revoke`,
  };
}

/**
 * The resource a token may be asked for: the MCP server, or Herald as a whole (what the root metadata
 * describes; the key works on /v1 too). Compared after URL normalisation, ignoring one trailing slash.
 * Returns the canonical form, or undefined for anything else (another server's resource).
 */
export function acceptedResource(urls: AuthServerUrls, value: string): string | undefined {
  let normalised: string;
  try {
    const url = new URL(value);
    if (url.hash || url.search) return undefined;
    normalised = url.href.replace(/\/$/, '');
  } catch {
    return undefined;
  }
  for (const candidate of [urls.mcpResource, urls.issuer])
    if (new URL(candidate).href.replace(/\/$/, '') === normalised) return candidate;
  return undefined;
}

export function authorizationServerMetadata(
  urls: AuthServerUrls,
  options: { clientIdMetadataDocuments: boolean },
): Record<string, unknown> {
  const authMethods = ['none', 'client_secret_post', 'client_secret_basic'];
  return {
    issuer: urls.issuer,
    authorization_endpoint: urls.authorize,
    token_endpoint: urls.token,
    registration_endpoint: urls.register,
    revocation_endpoint: urls.revoke,
    scopes_supported: [...OAUTH_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_methods_supported: authMethods,
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: options.clientIdMetadataDocuments,
    service_documentation: `${urls.issuer}/docs`,
  };
}

function protectedResourceMetadata(
  urls: AuthServerUrls,
  resource: string,
  scopes: readonly string[],
): Record<string, unknown> {
  return {
    resource,
    authorization_servers: [urls.issuer],
    scopes_supported: scopes,
    bearer_methods_supported: ['header'],
    resource_name: 'Herald',
    resource_documentation: `${urls.issuer}/docs`,
  };
}

/**
 * `/.well-known/*`: public, cacheable for a few minutes, readable from any origin (browser-based MCP clients
 * discover the server too). `mcpScopes` are the scopes the MCP tools use: what a client should ask for.
 */
export function registerWellKnownRoutes(
  app: FastifyInstance,
  urls: AuthServerUrls,
  mcpScopes: readonly string[],
  options: { clientIdMetadataDocuments: boolean },
): void {
  const json = (body: Record<string, unknown>) => JSON.stringify(body);
  const asMetadata = json(authorizationServerMetadata(urls, options));
  const mcpMetadata = json(protectedResourceMetadata(urls, urls.mcpResource, mcpScopes));
  const rootMetadata = json(protectedResourceMetadata(urls, urls.issuer, OAUTH_SCOPES));
  const send = (body: string) => async (_request: unknown, reply: FastifyReply) =>
    reply
      .header('access-control-allow-origin', '*')
      .header('cache-control', 'public, max-age=300')
      .type('application/json; charset=utf-8')
      .send(body);
  const hide = { schema: { hide: true } };
  app.get('/.well-known/oauth-authorization-server', hide, send(asMetadata));
  app.get('/.well-known/oauth-protected-resource/mcp', hide, send(mcpMetadata));
  app.get('/.well-known/oauth-protected-resource', hide, send(rootMetadata));
}
