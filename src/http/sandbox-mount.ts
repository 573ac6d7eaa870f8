// The simulators under /sandbox/<platform>, built on their first request instead of at start (docs/decisions.md
// "The simulators' routes are built on first use"): registering their few hundred routes took about a quarter of
// the time to ready. Here a catch-all route leaves the body unread and hands the raw request to a second Fastify
// instance that holds those routes; that instance is made like the served one (server-base.ts), so a simulator's
// request is parsed, refused, logged and measured as before, and answers itself.
import type { FastifyInstance, HTTPMethods } from 'fastify';

const METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export function registerLazySandbox(app: FastifyInstance, prefix: string, build: () => Promise<FastifyInstance>): void {
  let inner: Promise<FastifyInstance> | undefined;
  const simulators = () =>
    (inner ??= build()
      .then(async (built) => {
        await built.ready();
        return built;
      })
      .catch((error: unknown) => {
        inner = undefined; // the next request tries again
        throw error;
      }));
  app.addHook('onClose', async () => {
    const built = await inner?.catch(() => undefined);
    await built?.close();
  });
  void app.register(
    async (scope) => {
      // Whatever the content type, the body stays in the request stream for the simulators' own parsers.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
      scope.route({
        method: METHODS,
        url: '/*',
        exposeHeadRoute: false,
        schema: { hide: true },
        handler: async (request, reply) => {
          const target = await simulators();
          reply.hijack();
          target.routing(request.raw, reply.raw);
        },
      });
    },
    { prefix },
  );
}
