// POST /mcp: the Streamable HTTP endpoint, stateless (a new SDK Server and transport per request, so any API
// process can answer). Before the SDK sees a message: Origin check (403), bearer key (401 with the discovery
// challenge), the key's rate-limit budget (429), and the scope of every tool called (403 insufficient_scope, so
// the client can step up). A JSON-RPC batch spends one unit per tools/call and tools/list instead, each in its
// handler, so a batch of N calls costs what N requests would. Errors keep JSON-RPC's shape, never the /v1 envelope.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type * as SdkServer from '@modelcontextprotocol/sdk/server/index.js';
import type * as SdkTransport from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type * as SdkTypes from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../config.ts';
import type { Authenticator, Principal } from '../features/keys/authenticator.ts';
import { toAppError } from '../app/errors.ts';
import { budgetsFor, rateLimitHeaders, type Budget, type RateLimiter } from '../app/rate-limit.ts';
import type { Dispatcher } from './dispatch.ts';
import { INSTRUCTIONS, SERVER_INFO } from './instructions.ts';
import type { AuthServerUrls } from './oauth/metadata.ts';

export interface McpEndpointDeps {
  config: Config;
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  urls: AuthServerUrls;
  dispatcher: Dispatcher;
  tools: SdkTypes.Tool[];
  /** The scopes the tools use: what a 401 challenge asks for. */
  toolScopes: readonly string[];
}

/**
 * The SDK (some 7 MiB of heap, mostly its schemas) loads with the first MCP message, not at start: a process that
 * never serves MCP does not carry it, and a smaller resident heap makes every garbage collection cheaper.
 */
let sdk:
  | Promise<{
      Server: typeof SdkServer.Server;
      Transport: typeof SdkTransport.WebStandardStreamableHTTPServerTransport;
      CallToolRequestSchema: typeof SdkTypes.CallToolRequestSchema;
      ListToolsRequestSchema: typeof SdkTypes.ListToolsRequestSchema;
      McpError: typeof SdkTypes.McpError;
    }>
  | undefined;
export function loadSdk(): NonNullable<typeof sdk> {
  sdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]).then(([server, transport, types]) => ({
    Server: server.Server,
    Transport: transport.WebStandardStreamableHTTPServerTransport,
    CallToolRequestSchema: types.CallToolRequestSchema,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
    McpError: types.McpError,
  }));
  return sdk;
}

const FORWARDED_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];

function rpcError(
  reply: FastifyReply,
  status: number,
  code: number,
  message: string,
  extra: { id?: unknown; data?: unknown; headers?: Record<string, string> } = {},
): FastifyReply {
  const error: Record<string, unknown> = { code, message };
  if (extra.data !== undefined) error.data = extra.data;
  return reply
    .code(status)
    .headers(extra.headers ?? {})
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ jsonrpc: '2.0', id: extra.id ?? null, error }));
}

/** `key="value"` pairs of a WWW-Authenticate challenge (quotes and backslashes escaped). */
function challenge(params: Record<string, string | undefined>): string {
  const parts = Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}="${v!.replace(/["\\]/g, '\\$&')}"`);
  return `Bearer ${parts.join(', ')}`;
}

/** A repeated context header is ambiguous: it becomes an empty value, which no workspace or brand matches. */
function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? '' : value;
}

type RpcMessage = { id?: unknown; method?: unknown; params?: { name?: unknown } };

export async function registerMcpEndpoint(app: FastifyInstance, deps: McpEndpointDeps): Promise<void> {
  const budgets = budgetsFor(deps.config.rateLimits);
  const allowedOrigins = new Set([new URL(deps.config.publicUrl).origin, ...deps.config.mcpAllowedOrigins]);
  const hide = { schema: { hide: true } };

  function allowOrigin(request: FastifyRequest, reply: FastifyReply): boolean {
    const origin = request.headers.origin;
    if (origin === undefined) return true;
    if (!allowedOrigins.has(origin)) return false;
    reply.headers({
      'access-control-allow-origin': origin,
      vary: 'Origin',
      'access-control-expose-headers': 'www-authenticate, mcp-session-id, mcp-protocol-version, retry-after',
    });
    return true;
  }

  /**
   * The key's principal, or undefined once the 401 has been sent. Never the reply itself: a Fastify reply is a
   * thenable, so an async function returning it resolves to what its `then` gives (undefined), not to the reply.
   */
  async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<Principal | undefined> {
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer +(\S+) *$/i.exec(header) : null;
    const scope = deps.toolScopes.join(' ');
    if (!match) {
      rpcError(
        reply,
        401,
        -32001,
        'Authorization required: connect through OAuth (see WWW-Authenticate) or send a Herald API key as a bearer token.',
        {
          data: { code: 'PUBLIC_API_AUTH_REQUIRED' },
          headers: { 'www-authenticate': challenge({ resource_metadata: deps.urls.resourceMetadataUrl, scope }) },
        },
      );
      return undefined;
    }
    const result = await deps.authenticator.authenticate(match[1]!);
    if (!result.ok) {
      const description =
        result.code === 'PUBLIC_API_KEY_EXPIRED'
          ? 'The access token has expired.'
          : 'The access token is not valid (unknown, revoked or malformed).';
      rpcError(reply, 401, -32001, description, {
        data: { code: result.code },
        headers: {
          'www-authenticate': challenge({
            error: 'invalid_token',
            error_description: description,
            resource_metadata: deps.urls.resourceMetadataUrl,
          }),
        },
      });
      return undefined;
    }
    return result.principal;
  }

  await app.register(async (mcp) => {
    // Body problems (bad JSON, not JSON) answer as JSON-RPC errors; anything unexpected as an internal error.
    mcp.setErrorHandler((error, request, reply) => {
      const known = toAppError(error);
      if (known && known.status < 500) {
        const parse =
          known.code === 'PUBLIC_API_BODY_INVALID' ||
          known.code === 'PUBLIC_API_UNSUPPORTED_MEDIA_TYPE' ||
          known.code === 'PUBLIC_API_PAYLOAD_TOO_LARGE';
        return rpcError(reply, known.status, parse ? -32700 : -32600, known.message, {
          data: { code: known.code },
          headers: known.headers,
        });
      }
      if (known)
        return rpcError(reply, known.status, -32603, known.message, {
          data: { code: known.code },
          headers: known.headers,
        });
      request.log.error({ err: error }, 'mcp request failed');
      return rpcError(reply, 500, -32603, `Internal error; quote request id ${request.id} if you report it.`, {
        data: { code: 'PUBLIC_API_INTERNAL_ERROR' },
      });
    });

    mcp.route({
      method: ['GET', 'DELETE'],
      url: '/mcp',
      ...hide,
      // Stateless: no server-initiated stream and no session to end (Streamable HTTP allows 405 for both).
      handler: async (request, reply) => {
        allowOrigin(request, reply);
        return rpcError(reply, 405, -32000, 'This server is stateless: POST JSON-RPC messages to /mcp.', {
          headers: { allow: 'POST' },
        });
      },
    });

    mcp.options('/mcp', hide, async (request, reply) => {
      if (!allowOrigin(request, reply)) return reply.code(403).send();
      return reply
        .code(204)
        .headers({
          'access-control-allow-methods': 'POST, GET, DELETE',
          'access-control-allow-headers':
            'authorization, content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id, x-herald-workspace-id, x-herald-brand-id',
          'access-control-max-age': '600',
        })
        .send();
    });

    mcp.post('/mcp', hide, async (request, reply) => {
      if (!allowOrigin(request, reply)) {
        return rpcError(
          reply,
          403,
          -32000,
          `Origin ${String(request.headers.origin)} may not call this server (see HERALD_MCP_ALLOWED_ORIGINS).`,
        );
      }
      const authenticated = await authenticate(request, reply);
      if (!authenticated) return reply;
      const principal = authenticated; // narrowed for the handlers below, which are hoisted functions
      const messages = (Array.isArray(request.body) ? request.body : [request.body]) as RpcMessage[];
      const calls = messages.filter(
        (m) => m && typeof m === 'object' && m.method === 'tools/call' && typeof m.params?.name === 'string',
      );
      const tools = calls.map((m) => ({ message: m, tool: deps.dispatcher.byName.get(m.params!.name as string) }));

      // A batch (allowed by protocol 2025-03-26, which the SDK still negotiates) must not buy many tool calls for
      // one unit: each of its tools/call and tools/list spends its own, in the handlers below. Anything else
      // (a single message, a batch of pings and notifications) spends one unit here.
      const perMessage =
        Array.isArray(request.body) &&
        messages.some(
          (m) =>
            m &&
            typeof m === 'object' &&
            (m.method === 'tools/call' || m.method === 'tools/list' || String(m.method).startsWith('resources/')),
        );
      const limitMessage = (budget: Budget, headers: Record<string, string>) =>
        `Rate limit of ${budget.limit} ${budget.name} requests per minute reached; retry in ${headers['retry-after']} s.`;
      if (!perMessage) {
        const budget = tools.some((t) => t.tool?.mutates) ? budgets.write : budgets.read;
        const decision = await deps.rateLimiter.take(principal.keyId, budget);
        const limitHeaders = rateLimitHeaders(decision, budget.name);
        reply.headers(limitHeaders);
        if (!decision.allowed) {
          return rpcError(reply, 429, -32000, limitMessage(budget, limitHeaders), {
            id: messages[0]?.id,
            data: { code: 'PUBLIC_API_RATE_LIMITED' },
          });
        }
      }

      const lacking = tools.find((t) => t.tool?.scope && !principal.scopes.has(t.tool.scope));
      if (lacking?.tool?.scope) {
        // Ask for what the key has plus what is missing, so a step-up keeps the existing permissions.
        const wanted = [...new Set([...principal.scopes, lacking.tool.scope])].join(' ');
        return rpcError(
          reply,
          403,
          -32001,
          `${lacking.tool.name} needs the ${lacking.tool.scope} scope, which this key lacks.`,
          {
            id: lacking.message.id,
            data: { code: 'PUBLIC_API_SCOPE_FORBIDDEN', scope: lacking.tool.scope },
            headers: {
              'www-authenticate': challenge({
                error: 'insufficient_scope',
                scope: wanted,
                resource_metadata: deps.urls.resourceMetadataUrl,
                error_description: `Needs ${lacking.tool.scope}.`,
              }),
            },
          },
        );
      }

      const { Server, Transport, CallToolRequestSchema, ListToolsRequestSchema, McpError } = await loadSdk();
      /** One message of a batch spends its unit; over budget, that message alone gets the rate-limit error. */
      async function spendForMessage(budget: Budget): Promise<void> {
        if (!perMessage) return;
        const decision = await deps.rateLimiter.take(principal.keyId, budget);
        const limitHeaders = rateLimitHeaders(decision, budget.name);
        reply.headers(limitHeaders); // the batch's answer carries the last unit's figures
        if (!decision.allowed) {
          throw new McpError(-32000, limitMessage(budget, limitHeaders), {
            code: 'PUBLIC_API_RATE_LIMITED',
            retry_after: Number(limitHeaders['retry-after']),
          });
        }
      }
      // Resources (a brand's context) are served beside the tools they stand on: src/mcp/resources.ts.
      const resources = deps.dispatcher.byName.has('get_brand_context') ? await import('./resources.ts') : undefined;
      const server = new Server(SERVER_INFO, {
        capabilities: {
          tools: { listChanged: false },
          ...(resources ? { resources: { subscribe: false, listChanged: false } } : {}),
        },
        instructions: INSTRUCTIONS,
      });
      const callContext = {
        principal,
        workspaceHeader: singleHeader(request.headers['x-herald-workspace-id']),
        brandHeader: singleHeader(request.headers['x-herald-brand-id']),
        requestId: request.id,
        log: request.log,
      };
      resources?.registerBrandResources(server, callContext, deps.dispatcher, () => spendForMessage(budgets.read));
      server.setRequestHandler(ListToolsRequestSchema, async () => {
        await spendForMessage(budgets.read);
        return { tools: deps.tools };
      });
      server.setRequestHandler(CallToolRequestSchema, async (call) => {
        await spendForMessage(deps.dispatcher.byName.get(call.params.name)?.mutates ? budgets.write : budgets.read);
        return deps.dispatcher.call(callContext, call.params.name, call.params.arguments);
      });
      const transport = new Transport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      try {
        await server.connect(transport);
        const headers = new Headers();
        for (const name of FORWARDED_HEADERS) {
          const value = request.headers[name];
          if (typeof value === 'string') headers.set(name, value);
        }
        const response = await transport.handleRequest(
          new Request(deps.urls.mcpResource, { method: 'POST', headers }),
          {
            parsedBody: request.body,
            authInfo: { token: 'redacted', clientId: principal.keyId, scopes: [...principal.scopes] },
          },
        );
        reply.code(response.status);
        response.headers.forEach((value, name) => {
          if (name !== 'content-length') reply.header(name, value);
        });
        const text = await response.text();
        return reply.send(text === '' ? undefined : text);
      } finally {
        await transport.close().catch(() => {});
        await server.close().catch(() => {});
      }
    });
  });
}
