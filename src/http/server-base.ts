// The Fastify instance every app of Herald's starts from, in the order of the pipeline: errors, body parsing, access,
// then (added by the caller) routes. server.ts builds the served app on it; the simulators' app under /sandbox,
// built on its first request (sandbox-mount.ts), is made the same way, so a simulator's request is parsed, refused,
// logged and measured exactly as it was when its routes lived in the served app.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Container } from '../container.ts';
import { Connection } from '../features/connections/connections.routes.ts';
import { Media } from '../features/media/media.schemas.ts';
import { UPLOAD_PATH } from '../features/media/storage/local.ts';
import { Post } from '../features/posts/posts.view.schemas.ts';
import { Brand, BrandContextSchema } from '../features/brands/brands.view.schemas.ts';
import { WebhookDelivery, WebhookEndpoint } from '../features/webhooks/webhooks.schemas.ts';
import { Event } from '../features/events/events.schemas.ts';
import type { SessionPrincipals } from '../features/users/session-principal.ts';
import { registerDeprecation } from './deprecation.ts';
import { newRequestId } from '../lib/ids.ts';
import { loggableUrl } from '../lib/logger.ts';
import { registerAccess } from './access.ts';
import { registerBodyParsers } from './body.ts';
import { limitConnections, registerBodyDeadline, serverLimitOptions } from './limits.ts';
import { ErrorEnvelopeSchema, successBody } from '../app/envelope.ts';
import { clientErrorHandler, frameworkErrorHandler, registerErrorHandling } from './errors.ts';
import { createValidatorCompiler } from './validation.ts';

export interface BaseOptions {
  sessions: SessionPrincipals;
  isClosing(): boolean;
  /** Paths outside /v1 whose bodies use the envelope. */
  envelopePrefixes: string[];
  /**
   * The app that owns the listening socket: it caps connections and arms the body deadline. The simulators' app
   * is handed requests that the served app has already admitted and armed.
   */
  listens: boolean;
}

export function createBaseApp(container: Container, options: BaseOptions): FastifyInstance {
  const { config, logger, metrics } = container;
  const app: FastifyInstance = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    genReqId: () => newRequestId(),
    bodyLimit: config.bodyLimitBytes,
    return503OnClosing: false,
    // Deadlines, and whom to believe about the client's address (HERALD_TRUST_PROXY): see limits.ts.
    ...serverLimitOptions(config),
    routerOptions: { maxParamLength: 500 },
    frameworkErrors: frameworkErrorHandler(config.publicUrl),
    clientErrorHandler: clientErrorHandler(config.publicUrl, newRequestId),
    ajv: undefined,
  });
  app.setValidatorCompiler(createValidatorCompiler());
  // Responses are plain JSON.stringify: the response schemas document the API (and tests check bodies against
  // them), but never silently drop a field at run time.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.addSchema(ErrorEnvelopeSchema);
  app.addSchema(Post);
  app.addSchema(WebhookEndpoint);
  app.addSchema(WebhookDelivery);
  app.addSchema(Event);
  app.addSchema(Media);
  app.addSchema(Brand);
  app.addSchema(BrandContextSchema);
  // Shared schemas go on the root: one added in a child context would not inherit the validator compiler.
  app.addSchema(Connection);

  registerErrorHandling(app, config.publicUrl);
  registerDeprecation(app);
  if (options.listens) {
    limitConnections(app.server, config);
    registerBodyDeadline(app, config, `${UPLOAD_PATH}/`);
  }
  registerBodyParsers(app);
  // The dashboard's session cookie is a second /v1 credential (docs/api.md "Sessions").
  registerAccess(app, {
    config,
    db: container.pool,
    authenticator: container.authenticator,
    sessions: options.sessions,
    rateLimiter: container.rateLimiter,
    isClosing: options.isClosing,
    envelopePrefixes: options.envelopePrefixes,
  });
  // Handlers return the data; the envelope is added here (mutations and errors send finished strings).
  app.addHook('preSerialization', async (request, reply, payload) =>
    request.ctx.envelope && reply.statusCode < 400 ? successBody(request.id, payload) : payload,
  );
  app.addHook('onResponse', async (request, reply) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
    // One access line per request: the route pattern, never the raw URL (its path and query can carry tokens).
    const line = {
      method: request.method,
      route: labels.route,
      ...(labels.route === 'unmatched' ? { path: loggableUrl(request.url) } : {}),
      status: reply.statusCode,
      duration_ms: Math.round(reply.elapsedTime * 10) / 10,
      key_id: request.ctx?.principal?.keyId,
      workspace_id: request.ctx?.workspaceId ?? undefined,
    };
    if (reply.statusCode >= 500) request.log.warn(line, 'request failed');
    else request.log.info(line, 'request');
  });
  return app;
}
