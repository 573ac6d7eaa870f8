// Wires Herald's MCP surface into the app: discovery documents, the OAuth authorization server (consent pages,
// token, revocation, registration) and the /mcp endpoint with its tools. Each part keeps its own error format.
import type { FastifyInstance } from 'fastify';
import type { Container } from '../container.ts';
import type { Scope } from '../features/keys/scopes.ts';
import { renderPageError } from '../features/users/login.routes.ts';
import { acceptCookies, acceptForms } from '../http/forms.ts';
import { budgetsFor } from '../app/rate-limit.ts';
import { createDispatcher } from './dispatch.ts';
import { registerMcpEndpoint } from './endpoint.ts';
import { registerAuthorizeRoutes } from './oauth/authorize.routes.ts';
import {
  cachedDocumentFetcher,
  ClientDocumentError,
  guardedDocumentFetcher,
  isClientIdUrl,
  resolveClientDocument,
} from '../features/oauth/client-documents.ts';
import { findClient } from '../features/oauth/clients.service.ts';
import { registerOAuthErrorHandler } from './oauth/errors.ts';
import { createGrantsService } from '../features/oauth/grants.service.ts';
import { authServerUrls, registerWellKnownRoutes } from './oauth/metadata.ts';
import { registerTokenRoutes } from './oauth/token.routes.ts';
import { approvalsTools } from './tools/approvals.tools.ts';
import { repurposeTools } from './tools/repurpose.tools.ts';
import { automationsTools } from './tools/automations.tools.ts';
import { inboxTools } from './tools/inbox.tools.ts';
import { brandsTools } from './tools/brands.tools.ts';
import { catalogueTools } from './tools/catalogue.tools.ts';
import { connectionsTools } from './tools/connections.tools.ts';
import { mediaTools } from './tools/media.tools.ts';
import { postsTools } from './tools/posts.tools.ts';
import { eventsTools } from './tools/events.tools.ts';
import { analyticsTools } from './tools/analytics.tools.ts';
import { calendarTools } from './tools/calendar.tools.ts';
import { bestTimesTools } from './tools/best-times.tools.ts';
import { queuesTools } from './tools/queues.tools.ts';
import { describeTool, type ToolDefinition } from './tools/tool.ts';

/** Every tool, in the order tools/list shows them. Later features add theirs here. */
export function mcpTools(container: Container): ToolDefinition[] {
  return [
    ...postsTools(container.posts),
    ...mediaTools(container.media),
    ...connectionsTools(),
    ...brandsTools(),
    ...approvalsTools(container.approvals),
    ...repurposeTools(container.repurpose),
    ...automationsTools(container.automations),
    ...inboxTools(container.inbox, container.pool),
    ...eventsTools(container.events),
    ...analyticsTools(container.analytics),
    ...calendarTools(container.calendar),
    ...queuesTools(container.queues, container.posts),
    ...bestTimesTools(container.clock),
    ...catalogueTools(container.pool),
  ];
}

export async function registerMcp(app: FastifyInstance, container: Container): Promise<void> {
  const { config, pool, keyring, clock, rateLimiter } = container;
  const urls = authServerUrls(config.publicUrl);
  const tools = mcpTools(container);
  const toolScopes = [...new Set(tools.map((t) => t.scope).filter((s): s is Scope => s !== null))];
  const grants = createGrantsService({
    pool,
    keyring,
    clock,
    accessTokenTtlSeconds: config.oauth.accessTokenTtlSeconds,
    grantTtlDays: config.oauth.grantTtlDays,
  });
  const lookupClient = (id: string) => findClient(pool, id);
  // One fetch per client_id URL a minute, whatever it answered: the authorization page is anonymous.
  const fetchDocument = cachedDocumentFetcher(guardedDocumentFetcher(container.outboundGuard));
  const resolveClient = async (id: string) => {
    if (!isClientIdUrl(id)) return findClient(pool, id);
    try {
      return await resolveClientDocument(pool, id, fetchDocument, clock.now());
    } catch (error) {
      // The page says one generic thing; what the address answered is for the operator only.
      if (error instanceof ClientDocumentError && error.reason)
        container.logger.info({ client_id: id, reason: error.reason }, 'client metadata document not usable');
      throw error;
    }
  };

  registerWellKnownRoutes(app, urls, toolScopes, { clientIdMetadataDocuments: true });

  await app.register(async (oauth) => {
    await acceptForms(oauth);
    registerOAuthErrorHandler(oauth);
    await registerTokenRoutes(oauth, {
      pool,
      clock,
      grants,
      rateLimiter,
      registrationBudget: budgetsFor(config.rateLimits).anonymous,
      findClient: lookupClient,
    });
    // The authorization endpoint talks to a person: its errors are pages.
    await oauth.register(async (pages) => {
      await acceptCookies(pages);
      pages.setErrorHandler((error, request, reply) => renderPageError(error, request, reply));
      registerAuthorizeRoutes(pages, {
        pool,
        clock,
        urls,
        grants,
        grantTtlDays: config.oauth.grantTtlDays,
        findClient: lookupClient,
        resolveClient,
        defaultScopes: toolScopes,
        rateLimiter,
        anonymousBudget: budgetsFor(config.rateLimits).anonymous,
        web: { db: pool, keyring, config },
      });
    });
  });

  const dispatcher = createDispatcher({ pool, keyring, publicUrl: config.publicUrl, tools });
  await registerMcpEndpoint(app, {
    config,
    authenticator: container.authenticator,
    rateLimiter,
    urls,
    dispatcher,
    tools: tools.map(describeTool),
    toolScopes,
  });
}
