// Deprecated routes (docs/versioning.md): `config.deprecated` on a route puts Deprecation (RFC 9745), Sunset
// (RFC 8594) and Link headers on every response it sends, errors included, and marks the operation deprecated in
// the OpenAPI document. A test-only route on a bare server with Herald's deprecation hook and OpenAPI transform.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyInstance } from 'fastify';
import { deprecationHeaders, registerDeprecation } from '../src/http/deprecation.ts';
import { registerOpenApi } from '../src/http/openapi.ts';

let app: FastifyInstance;

before(async () => {
  app = Fastify();
  registerDeprecation(app);
  await registerOpenApi(app, 'http://herald.test');
  await app.register(
    async (v1) => {
      v1.get(
        '/old',
        {
          config: {
            access: { scopes: 'public', workspace: false, mutates: false },
            deprecated: { since: '2026-12-01', sunset: '2027-06-01', link: 'https://herald.test/docs/versioning' },
          },
          schema: {
            operationId: 'oldThing',
            querystring: { type: 'object', properties: { fail: { type: 'string' } } },
          },
        },
        async (request, reply) => {
          const { fail } = request.query as { fail?: string };
          if (fail === 'throw') throw new Error('handler failed');
          if (fail) return reply.code(400).send({ success: false });
          return { success: true };
        },
      );
      v1.get(
        '/current',
        {
          config: { access: { scopes: 'public', workspace: false, mutates: false } },
          schema: { operationId: 'current' },
        },
        async () => ({ success: true }),
      );
    },
    { prefix: '/v1' },
  );
  await app.ready();
});
after(() => app.close());

test('a deprecated route sends Deprecation, Sunset and Link on every response, errors included', async () => {
  for (const url of ['/v1/old', '/v1/old?fail=1', '/v1/old?fail=throw']) {
    const res = await app.inject({ url });
    assert.equal(res.headers.deprecation, `@${Date.parse('2026-12-01T00:00:00Z') / 1000}`);
    assert.equal(res.headers.sunset, 'Tue, 01 Jun 2027 00:00:00 GMT');
    assert.equal(
      res.headers.link,
      '<https://herald.test/docs/versioning>; rel="deprecation"; type="text/html", <https://herald.test/docs/versioning>; rel="sunset"; type="text/html"',
    );
  }
  const current = await app.inject({ url: '/v1/current' });
  assert.equal(current.headers.deprecation, undefined);
  assert.equal(current.headers.sunset, undefined);
});

test('the OpenAPI document marks only the deprecated operation, and describes the headers its answers carry', () => {
  type Op = { deprecated?: boolean; description?: string; responses: Record<string, { headers?: object }> };
  const doc = app.swagger() as unknown as {
    paths: Record<string, Record<string, Op>>;
    components: { headers: object };
  };
  const old = Object.entries(doc.paths).find(([p]) => p.endsWith('/old'))![1].get!;
  assert.equal(old.deprecated, true);
  assert.match(old.description ?? '', /Deprecated since 2026-12-01; removed after 2027-06-01/);
  assert.ok(!('x-herald-deprecation' in old), 'the internal mark is dropped');
  for (const [status, response] of Object.entries(old.responses)) {
    for (const name of ['Deprecation', 'Sunset', 'Link'])
      assert.ok(name in (response.headers ?? {}), `${name} on ${status}`);
  }
  for (const name of ['Deprecation', 'Sunset', 'Link']) assert.ok(name in doc.components.headers, name);
  const current = Object.entries(doc.paths).find(([p]) => p.endsWith('/current'))![1].get!;
  assert.equal(current.deprecated, undefined);
  for (const response of Object.values(current.responses))
    assert.ok(!('Deprecation' in (response.headers ?? {})), 'no Deprecation on a current operation');
});

test('headers without a sunset or link, and dates that do not parse fail at registration', () => {
  assert.deepEqual(deprecationHeaders({ since: '2026-12-01T12:00:00Z' }), {
    deprecation: `@${Date.parse('2026-12-01T12:00:00Z') / 1000}`,
  });
  assert.throws(() => deprecationHeaders({ since: 'soon' }), /since is not a date/);
  assert.throws(() => deprecationHeaders({ since: '2026-12-01', sunset: 'later' }), /sunset is not a date/);
  assert.throws(() => deprecationHeaders({ since: '2026-12-01', sunset: '2026-01-01' }), /before/);
  const bare = Fastify();
  registerDeprecation(bare);
  assert.throws(() => bare.get('/x', { config: { deprecated: { since: 'never' } } }, async () => ({})));
  void bare.close();
});
