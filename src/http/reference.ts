// The API reference at /docs (Scalar), loaded on first visit, and its configuration. Herald's reference stays on the machine: the page
// loads only from Herald itself (the bundle is served by the plugin, fonts are the system's, no telemetry), and
// offers nothing that sends the description to a third party — Scalar's "Ask AI" agent, its "Generate MCP"
// upload, its API client and developer toolbar are off. The MCP hint points at Herald's own /mcp.
// test/tools/docs-offline.test.ts loads the page in Chromium and checks every request it makes.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { ApiReferenceConfiguration } from '@scalar/fastify-api-reference';
import { EXAMPLE_IDEMPOTENCY_KEY } from './openapi.finish.ts';

/** Herald's mark: a paper plane in a rounded square. */
export const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f3a8a"/><path d="M7 16.5 25 8l-4.5 17-5-5.2-3.5 3.2v-5z" fill="#fff"/></svg>`;

/**
 * The description as the page renders it: `/v1/openapi.json` with a new random Idempotency-Key in place of the
 * fixed example, so the curl samples a reader copies carry a key of their own rather than one shared by everyone.
 */
export function referenceDocument(app: FastifyInstance): string {
  return JSON.stringify(app.swagger()).replaceAll(EXAMPLE_IDEMPOTENCY_KEY, randomUUID());
}

export function referenceConfiguration(publicUrl: string): Partial<ApiReferenceConfiguration> {
  // `agent` (the "Ask AI" panel, on by default on localhost) and `showToolbar` (the developer toolbar, with its
  // "Share" and "Deploy" uploads) are read by the bundle but missing from the plugin's types.
  const unlisted = { agent: { disabled: true }, showToolbar: 'never' } as Partial<ApiReferenceConfiguration>;
  return {
    url: '/docs/openapi.json',
    title: 'Herald API',
    pageTitle: 'Herald API reference',
    favicon: '/docs/favicon.svg',
    withDefaultFonts: false,
    telemetry: false,
    hideClientButton: true,
    hideTestRequestButton: true,
    showDeveloperTools: 'never',
    mcp: { name: 'Herald', url: `${publicUrl}/mcp` },
    ...unlisted,
  };
}

/**
 * The API reference page under /docs. Its plugin keeps a 4 MB browser bundle as a string in the heap (12 MiB),
 * which a smaller resident heap — every garbage collection costs in proportion to it — is better without until
 * someone opens the page: then it loads into a Fastify instance of its own, and /docs requests are answered
 * through it.
 */
export function registerReferencePage(app: FastifyInstance, publicUrl: string): void {
  let page: Promise<FastifyInstance> | undefined;
  const load = () =>
    (page ??= (async () => {
      const { default: scalar } = await import('@scalar/fastify-api-reference');
      const docs = Fastify({ logger: false });
      await docs.register(scalar, { routePrefix: '/docs', configuration: referenceConfiguration(publicUrl) });
      docs.get('/docs/favicon.svg', (_request, reply) =>
        reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(FAVICON),
      );
      await docs.ready();
      return docs;
    })());
  const hop = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);
  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    const docs = await load();
    const answer = await docs.inject({
      method: request.method as 'GET' | 'HEAD',
      url: request.url,
      headers: { accept: request.headers.accept ?? '*/*' },
    });
    reply.code(answer.statusCode);
    for (const [name, value] of Object.entries(answer.headers))
      if (!hop.has(name) && value !== undefined) reply.header(name, value);
    return reply.send(answer.rawPayload);
  };
  app.get('/docs', { schema: { hide: true } }, serve);
  app.get('/docs/*', { schema: { hide: true } }, serve);
  // The description the page renders: /v1/openapi.json with a fresh Idempotency-Key in its samples.
  app.get('/docs/openapi.json', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').header('cache-control', 'no-store').send(referenceDocument(app)),
  );
  app.addHook('onClose', async () => {
    if (page) await (await page).close();
  });
}
