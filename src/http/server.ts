// Builds the Fastify app from a container. Tests build the same app (app.inject) as `herald serve` does. The
// pipeline (errors, body parsing, access) is server-base.ts; the routes follow here.
import type { FastifyInstance } from 'fastify';
import type { Container } from '../container.ts';
import { pendingMigrations } from '../db/migrate.ts';
import { registerMediaRoutes } from '../features/media/media.routes.ts';
import { registerLocalTransferRoutes, TRANSFER_ENVELOPE_PREFIXES } from '../features/media/media.transfer.routes.ts';
import { registerPlatformsRoutes } from '../features/platforms/platforms.routes.ts';
import { publishingHealth } from '../features/publishing/health.ts';
import { platformErrorRows } from '../platforms/errors.ts';
import { mountSimulators } from '../sandbox/mount.ts';
import { sandboxAdmission } from './sandbox-admission.ts';
import { registerPostsRoutes } from '../features/posts/posts.routes.ts';
import { registerRecyclingRoutes } from '../features/recycling/recycling.routes.ts';
import { registerBrandsRoutes } from '../features/brands/brands.routes.ts';
import { registerApprovalsRoutes } from '../features/approvals/approvals.routes.ts';
import { registerRepurposeRoutes } from '../features/repurpose/repurpose.routes.ts';
import { registerBulkImportRoutes } from '../features/bulk-import/bulk-import.routes.ts';
import { registerAutomationsRoutes } from '../features/automations/automations.routes.ts';
import { registerQueuesRoutes } from '../features/queues/queues.routes.ts';
import { registerBestTimesRoutes } from '../features/queues/best-times.routes.ts';
import { registerInboxRoutes } from '../features/inbox/inbox.routes.ts';
import { registerInboxAutomationRoutes } from '../features/inbox/automations.routes.ts';
import { registerWebhooksRoutes } from '../features/webhooks/webhooks.routes.ts';
import { registerEventsRoutes } from '../features/events/events.routes.ts';
import { registerAnalyticsRoutes } from '../features/analytics/analytics.routes.ts';
import { registerCalendarRoutes } from '../features/calendar/calendar.routes.ts';
import { registerCalendarFeedRoute } from '../features/calendar/calendar.feed.routes.ts';
import { registerWorkspacesRoutes } from '../features/workspaces/workspaces.routes.ts';
import { registerLoginRoutes } from '../features/users/login.routes.ts';
import { registerSessionRoutes } from '../features/users/session.routes.ts';
import { registerMeRoutes } from '../features/users/me.routes.ts';
import { createSessionPrincipals } from '../features/users/session-principal.ts';
import { registerKeysRoutes } from '../features/keys/keys.routes.ts';
import { registerMembersRoutes } from '../features/members/members.routes.ts';
import { registerDashboard } from '../features/dashboard/static.ts';
import { cookieName } from './forms.ts';
import { registerMcp } from '../mcp/register.ts';
import { registerConnectRoutes } from '../features/connections/connect.routes.ts';
import { connectAvailability } from '../features/connections/connect.platform.ts';
import { heraldVersion } from '../lib/version.ts';
import { registerMetricsRoute } from './metrics.ts';
import { createBaseApp } from './server-base.ts';
import { registerLazySandbox } from './sandbox-mount.ts';
import { registerConnectionsRoutes } from '../features/connections/connections.routes.ts';
import { registerOpenApi, errorCatalogueRows, openApiRouteSchema } from './openapi.ts';
import { actionsDocument, actionsRouteSchema } from './openapi.actions.ts';
import { registerReferencePage } from './reference.ts';

/** The YAML writer, loaded by the first request for YAML rather than at start (docs/decisions.md "Start-up loads what serving needs"). */
const toYaml = async () => (await import('yaml')).stringify;

export interface ServerOptions {
  /** Paths outside /v1 whose bodies use the envelope (the local upload URL, added by the media feature). */
  envelopePrefixes?: string[];
  /**
   * The job runners this process runs besides HTTP (`serve --role all`), each true while running: /health/ready
   * reports them. An API-only process has none, and its readiness never depends on another process's.
   */
  loops?: () => Record<string, boolean>;
}

export async function buildServer(container: Container, options: ServerOptions = {}): Promise<FastifyInstance> {
  const { config } = container;
  let closing = false;
  const sessions = createSessionPrincipals({ db: container.pool, keyring: container.keyring, config });
  const base = {
    sessions,
    isClosing: () => closing,
    envelopePrefixes: [...TRANSFER_ENVELOPE_PREFIXES, '/app/api/', ...(options.envelopePrefixes ?? [])],
  };
  const app = createBaseApp(container, { ...base, listens: true });
  app.addHook('preClose', async () => {
    closing = true;
  });

  await registerOpenApi(app, config.publicUrl);

  await app.register(
    async (v1) => {
      registerPostsRoutes(v1, {
        pool: container.pool,
        keyring: container.keyring,
        posts: container.posts,
        media: container.media,
      });
      registerRecyclingRoutes(v1, { pool: container.pool, keyring: container.keyring, recycling: container.recycling });
      registerConnectionsRoutes(v1, {
        pool: container.pool,
        keyring: container.keyring,
        access: container.platformAccess,
        logger: container.logger,
        postMedia: container.media,
        connectLinkTtlSeconds: config.connectLinkTtlSeconds,
      });
      registerWebhooksRoutes(v1, { pool: container.pool, keyring: container.keyring, webhooks: container.webhooks });
      registerEventsRoutes(v1, { pool: container.pool, events: container.events });
      registerAnalyticsRoutes(v1, { pool: container.pool, keyring: container.keyring, analytics: container.analytics });
      registerCalendarRoutes(v1, { pool: container.pool, keyring: container.keyring, calendar: container.calendar });
      registerWorkspacesRoutes(v1, { pool: container.pool });
      registerKeysRoutes(v1, {
        pool: container.pool,
        keyring: container.keyring,
        authenticator: container.authenticator,
        clock: container.clock,
      });
      registerMembersRoutes(v1, {
        pool: container.pool,
        keyring: container.keyring,
        clock: container.clock,
        publicUrl: config.publicUrl,
        mailer: container.mailer,
      });
      registerMeRoutes(v1, {
        pool: container.pool,
        keyring: container.keyring,
        sessions,
        clearSessionCookie: clearedSessionCookie(config.publicUrl),
      });
      registerBrandsRoutes(v1, { pool: container.pool, keyring: container.keyring });
      registerApprovalsRoutes(v1, { pool: container.pool, keyring: container.keyring, approvals: container.approvals });
      registerRepurposeRoutes(v1, { pool: container.pool, keyring: container.keyring, repurpose: container.repurpose });
      registerBulkImportRoutes(v1, {
        pool: container.pool,
        keyring: container.keyring,
        bulkImport: container.bulkImport,
      });
      registerAutomationsRoutes(v1, {
        pool: container.pool,
        keyring: container.keyring,
        automations: container.automations,
      });
      registerInboxRoutes(v1, { pool: container.pool, keyring: container.keyring, inbox: container.inbox });
      registerQueuesRoutes(v1, { pool: container.pool, keyring: container.keyring, queues: container.queues });
      registerBestTimesRoutes(v1, { pool: container.pool, clock: container.clock });
      registerInboxAutomationRoutes(v1, {
        pool: container.pool,
        keyring: container.keyring,
        automations: container.inboxAutomations,
      });
      registerPlatformsRoutes(v1, container.platforms, connectAvailability(container.platformAccess));
      registerMediaRoutes(v1, { pool: container.pool, keyring: container.keyring, media: container.media });
      const describe = openApiRouteSchema;
      const anyone = { access: { scopes: 'public' as const, workspace: false, mutates: false } };
      v1.get('/openapi', { config: anyone, schema: describe('yaml') }, async (_request, reply) =>
        reply
          .type('application/yaml; charset=utf-8')
          .send((await toYaml())(app.swagger(), { aliasDuplicateObjects: false })),
      );
      v1.get('/openapi.json', { config: anyone, schema: describe('json') }, async (_request, reply) =>
        reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger())),
      );
      // The action profile for custom GPT actions (openapi.actions.ts, docs/gpt-actions.md).
      const actions = () => actionsDocument(app.swagger() as Record<string, unknown>, config.publicUrl);
      v1.get('/openapi/actions', { config: anyone, schema: actionsRouteSchema('yaml') }, async (_request, reply) =>
        reply
          .type('application/yaml; charset=utf-8')
          .send((await toYaml())(actions(), { aliasDuplicateObjects: false })),
      );
      v1.get('/openapi/actions.json', { config: anyone, schema: actionsRouteSchema('json') }, async (_request, reply) =>
        reply.type('application/json; charset=utf-8').send(JSON.stringify(actions())),
      );
    },
    { prefix: '/v1' },
  );

  // Outside /v1, each with its own format: sign-in pages (HTML), OAuth, discovery documents and /mcp (JSON-RPC).
  await registerLoginRoutes(app, {
    pool: container.pool,
    keyring: container.keyring,
    config,
    rateLimiter: container.rateLimiter,
  });
  // The dashboard: its JSON sign-in under /app/api and its build at /app (docs/dashboard.md).
  await registerSessionRoutes(app, {
    pool: container.pool,
    keyring: container.keyring,
    config,
    rateLimiter: container.rateLimiter,
    sessions,
    clock: container.clock,
  });
  registerDashboard(app);
  await registerMcp(app, container);
  await registerConnectRoutes(app, {
    pool: container.pool,
    access: container.platformAccess,
    ttlSeconds: config.connectLinkTtlSeconds,
  });
  if (container.media.storage.driver === 'local') await registerLocalTransferRoutes(app, { media: container.media });
  registerCalendarFeedRoute(app, {
    pool: container.pool,
    calendar: container.calendar,
    rateLimiter: container.rateLimiter,
    limits: config.rateLimits,
  });

  app.get('/health/live', { schema: { hide: true } }, async () => ({ status: 'ok', version: heraldVersion() }));
  app.get('/health/ready', { schema: { hide: true } }, async (_request, reply) => {
    const checks: Record<string, unknown> = {};
    // Whether THIS process can serve: its database, the migrations its build needs and its own job runners. The
    // fleet's publishing (is any worker alive, is anything overdue) is /health/publishing, not a reason to take an
    // API process out of a load balancer's rotation (docs/decisions.md, "Readiness is per process").
    let ready = !closing;
    if (closing) checks.shutting_down = true;
    try {
      const pending = await pendingMigrations(container.pool);
      checks.database = 'ok';
      checks.migrations = pending.length === 0 ? 'current' : { pending };
      if (pending.length > 0) ready = false;
    } catch (error) {
      checks.database = { error: (error as Error).message };
      ready = false;
    }
    for (const [loop, running] of Object.entries(options.loops?.() ?? {})) {
      checks[loop] = running ? 'running' : 'stopped';
      if (!running) ready = false;
    }
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks });
  });
  // The fleet's publishing, for monitors: 200 when ok, 503 when degraded, the figures in both (docs/api.md, "Health").
  app.get('/health/publishing', { schema: { hide: true } }, async (_request, reply) => {
    try {
      const health = await publishingHealth(container.pool, container.config.publishing);
      return await reply.code(health.status === 'ok' ? 200 : 503).send(health);
    } catch (error) {
      return reply.code(503).send({ status: 'unknown', problems: ['database'], error: (error as Error).message });
    }
  });
  registerMetricsRoute(app, container.metrics, config.metrics.token);
  // The simulated platforms, each speaking its own API under /sandbox/<platform> (sandbox connections use them).
  // Anonymous simulator traffic spends the anonymous budget per client address, as sign-in does.
  if (container.simulators.platforms.length > 0)
    registerLazySandbox(app, '/sandbox', async () => {
      const simulators = createBaseApp(container, { ...base, listens: false });
      await mountSimulators(simulators, await container.simulators.load(), '/sandbox', {
        admit: sandboxAdmission(container.rateLimiter, container.config.rateLimits),
      });
      return simulators;
    });
  app.get('/docs/errors', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(errorPage()),
  );
  registerReferencePage(app, config.publicUrl);
  return app;
}

function errorPage(): string {
  const escape = (s: string) =>
    s
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/`([^`]+)`/g, '<code>$1</code>');
  const rows = errorCatalogueRows()
    .map(
      (r) =>
        `<tr id="${r.code}"><td><code>${r.code}</code></td><td>${r.status}</td><td>${r.retryable ? 'yes' : 'no'}</td><td>${escape(r.when)}</td></tr>`,
    )
    .join('\n');
  const platformRows = platformErrorRows()
    .map(
      (r) =>
        `<tr id="${r.code}"><td><code>${r.code}</code></td><td>${r.category}</td><td>${r.kind}</td><td>${r.retryable ? 'yes' : 'no'}</td><td>${escape(r.when)}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Herald API errors</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}td,th{padding:.4rem;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}:target{background:#fff3c4}</style></head>
<body><h1>Herald API error codes</h1><p>Every error response under <code>/v1</code> carries one of these codes in <code>error.code</code>.</p>
<table><thead><tr><th>Code</th><th>HTTP</th><th>Retryable</th><th>When</th></tr></thead><tbody>
${rows}
</tbody></table>
<h2>Publishing errors</h2><p>A target that failed carries one of these in <code>targets[].error.code</code>, with its <code>category</code> and whether a retry can help.</p>
<table><thead><tr><th>Code</th><th>Category</th><th>Kind</th><th>Retryable</th><th>When</th></tr></thead><tbody>
${platformRows}
</tbody></table></body></html>`;
}

/** The Set-Cookie that ends the session cookie in the browser (sign out everywhere answers it under /v1). */
function clearedSessionCookie(publicUrl: string): string {
  const secure = publicUrl.startsWith('https:');
  return `${cookieName('herald_session', secure)}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}
