// The machine-facing OAuth endpoints: POST /oauth/token (authorization_code, refresh_token), POST /oauth/revoke
// (RFC 7009) and POST /oauth/register (RFC 7591). Form or JSON bodies as each RFC says; OAuth errors only.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Pool } from '../../db/pool.ts';
import type { Budget, RateLimiter } from '../../app/rate-limit.ts';
import type { Clock } from '../../lib/clock.ts';
import { authenticateClient, registerClient, type ClientRow } from '../../features/oauth/clients.service.ts';
import { OAuthError } from '../../features/oauth/oauth-error.ts';
import { registerOAuthErrorHandler } from './errors.ts';
import type { GrantsService } from '../../features/oauth/grants.service.ts';

export interface TokenRoutesDeps {
  pool: Pool;
  clock: Clock;
  grants: GrantsService;
  rateLimiter: RateLimiter;
  /** Registrations per client IP (the anonymous budget). */
  registrationBudget: Budget;
  findClient(id: string): Promise<ClientRow | undefined>;
}

const MACHINE_ENDPOINTS = ['/oauth/token', '/oauth/revoke', '/oauth/register'];

/** The parameters of a form post; each may appear once (RFC 6749 §3.2). */
function formParams(request: FastifyRequest): Record<string, string | undefined> {
  const type = String(request.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  if (type !== 'application/x-www-form-urlencoded' || !request.body || typeof request.body !== 'object') {
    throw new OAuthError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded.');
  }
  const out: Record<string, string | undefined> = {};
  // The urlencoded parser (@fastify/formbody with http/forms.ts parseForm) gives each field a string, or an array
  // when it is repeated.
  for (const [key, value] of Object.entries(request.body)) {
    if (typeof value !== 'string') throw new OAuthError('invalid_request', `${key} is repeated.`);
    out[key] = value;
  }
  return out;
}

function sendTokens(reply: FastifyReply, body: unknown): FastifyReply {
  return reply
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(body));
}

export async function registerTokenRoutes(app: FastifyInstance, deps: TokenRoutesDeps): Promise<void> {
  const hide = { schema: { hide: true } };
  // Browser-based MCP clients call these directly: they answer any origin (no cookies are involved).
  app.addHook('onSend', async (request, reply, payload) => {
    if (MACHINE_ENDPOINTS.includes(request.url.split('?')[0]!)) reply.header('access-control-allow-origin', '*');
    return payload;
  });
  for (const path of MACHINE_ENDPOINTS) {
    app.options(path, hide, async (_request, reply) =>
      reply
        .code(204)
        .headers({
          'access-control-allow-methods': 'POST',
          'access-control-allow-headers': 'authorization, content-type',
          'access-control-max-age': '600',
        })
        .send(),
    );
  }

  app.post('/oauth/token', hide, async (request, reply) => {
    const form = formParams(request);
    const client = await authenticateClient(request, form, deps.findClient);
    const grantType = form.grant_type;
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required.');
    if (grantType === 'authorization_code') {
      if (!form.code) throw new OAuthError('invalid_request', 'code is required.');
      return sendTokens(
        reply,
        await deps.grants.exchangeCode(client, {
          code: form.code,
          redirectUri: form.redirect_uri,
          codeVerifier: form.code_verifier,
          resource: form.resource,
        }),
      );
    }
    if (grantType === 'refresh_token') {
      if (!form.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required.');
      return sendTokens(
        reply,
        await deps.grants.refresh(client, {
          refreshToken: form.refresh_token,
          scope: form.scope,
          resource: form.resource,
        }),
      );
    }
    throw new OAuthError(
      'unsupported_grant_type',
      `grant_type ${grantType} is not supported; use authorization_code or refresh_token.`,
    );
  });

  app.post('/oauth/revoke', hide, async (request, reply) => {
    const form = formParams(request);
    const client = await authenticateClient(request, form, deps.findClient);
    if (!form.token) throw new OAuthError('invalid_request', 'token is required.');
    await deps.grants.revoke(client, form.token);
    // RFC 7009 §2.2: 200 whether or not the token was known.
    return reply.header('cache-control', 'no-store').code(200).send();
  });

  await app.register(async (registration) => {
    registerOAuthErrorHandler(registration, 'invalid_client_metadata');
    registration.post('/oauth/register', hide, async (request, reply) => {
      const decision = await deps.rateLimiter.take(request.ip, deps.registrationBudget);
      if (!decision.allowed) {
        throw new OAuthError('too_many_requests', 'Too many registrations from this address; retry later.', {
          'retry-after': String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))),
        });
      }
      const body = await registerClient(deps.pool, request.body, deps.clock.now());
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .type('application/json; charset=utf-8')
        .send(JSON.stringify(body));
    });
  });
}
