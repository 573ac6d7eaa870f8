// The OpenAPI description: served without a key as YAML and JSON, covering every /v1 route with its scope and
// error responses — and true: real responses of the API validate against the schemas it documents.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
import { buildTestApp, type TestApp } from './helpers/app.ts';

const addFormats = (addFormatsModule as unknown as { default: (a: Ajv2020) => void }).default ?? addFormatsModule;

let t: TestApp;
let key: string;
interface DocOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  security?: unknown;
  responses: Record<string, unknown>;
  'x-herald-scopes'?: string[];
}
let doc: { openapi: string; paths: Record<string, Record<string, DocOperation>> };
let ajv: Ajv2020;

before(async () => {
  t = await buildTestApp();
  key = await t.key();
  doc = (await t.inject({ url: '/v1/openapi.json' })).json();
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc, 'openapi');
});
after(() => t.close());

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** Validates a response against the schema documented for that operation and status. */
function assertDocumented(method: string, path: string, res: { statusCode: number; json(): unknown }): void {
  const op = doc.paths[path]?.[method.toLowerCase()];
  assert.ok(op, `${method} ${path} is documented`);
  const status = String(res.statusCode);
  assert.ok(op.responses[status], `${method} ${path} documents ${status}`);
  const validate = ajv.getSchema(
    `openapi#/${pointer('paths', path, method.toLowerCase(), 'responses', status, 'content', 'application/json', 'schema')}`,
  );
  assert.ok(validate, `schema for ${method} ${path} ${status}`);
  const ok = validate(res.json());
  assert.ok(ok, `${method} ${path} ${status} matches its schema: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
}

describe('serving the description', () => {
  test('GET /v1/openapi is YAML, needs no key, and is OpenAPI 3.1', async () => {
    const res = await t.inject({ url: '/v1/openapi' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/yaml/);
    const yaml = parseYaml(res.body);
    assert.equal(yaml.openapi, '3.1.0');
    assert.deepEqual(yaml.paths, doc.paths);
  });

  test('every /v1 route is documented with an operationId, a summary, its security and error responses', async () => {
    const v1 = t.app.routeTable
      .filter((r) => r.url.startsWith('/v1/') && r.method !== 'HEAD')
      .map((r) => [r.method, r.url] as const);
    assert.ok(v1.length >= 9);
    for (const [method, url] of v1) {
      const path = url!.replace(/^\/v1/, '').replace(/:([a-z_]+)/g, '{$1}');
      if (path.startsWith('/openapi')) continue;
      const op = doc.paths[path]?.[method.toLowerCase()];
      assert.ok(op, `${method} ${path} is in the description`);
      assert.ok(
        op.operationId && op.summary && op.description,
        `${method} ${path} has operationId, summary and description`,
      );
      if (op['x-herald-scopes']) {
        assert.deepEqual(op.security, [{ apiKey: [] }]);
        assert.ok(op.responses['401'] && op.responses['403'] && op.responses['429']);
      }
    }
  });
});

describe('responses match the documented schemas', () => {
  test('posts: create, get, list, patch, cancel, delete, validate', async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: {
        content: 'documented',
        platforms: ['x', 'mastodon'],
        schedule_at: new Date(Date.now() + 3_600_000).toISOString(),
        platform_options: { mastodon: { visibility: 'unlisted' } },
      },
    });
    assertDocumented('POST', '/posts', created);
    const id = (created.json() as { data: { post_id: string } }).data.post_id;
    assertDocumented('GET', '/posts/{id}', await t.inject({ url: `/v1/posts/${id}`, key }));
    assertDocumented('GET', '/posts', await t.inject({ url: '/v1/posts?limit=1', key }));
    assertDocumented(
      'PATCH',
      '/posts/{id}',
      await t.inject({ method: 'PATCH', url: `/v1/posts/${id}`, key, payload: { content: 'patched' } }),
    );
    assertDocumented(
      'POST',
      '/posts/{id}/cancel',
      await t.inject({ method: 'POST', url: `/v1/posts/${id}/cancel`, key }),
    );
    assertDocumented('DELETE', '/posts/{id}', await t.inject({ method: 'DELETE', url: `/v1/posts/${id}`, key }));
    assertDocumented(
      'POST',
      '/posts/validate',
      await t.inject({
        method: 'POST',
        url: '/v1/posts/validate',
        key,
        payload: { content: 'y'.repeat(400), platforms: ['x'] },
      }),
    );
  });

  test('workspaces and platforms', async () => {
    assertDocumented('GET', '/workspaces', await t.inject({ url: '/v1/workspaces', key }));
    assertDocumented('GET', '/platforms', await t.inject({ url: '/v1/platforms' }));
  });

  test('errors: 400, 401, 403, 404, 409, 422 bodies match the error envelope', async () => {
    assertDocumented(
      'POST',
      '/posts',
      await t.inject({ method: 'POST', url: '/v1/posts', key, payload: { platforms: [] } }),
    );
    assertDocumented('GET', '/posts', await t.inject({ url: '/v1/posts' }));
    assertDocumented(
      'GET',
      '/posts',
      await t.inject({ url: '/v1/posts', key: await t.key({ scopes: ['media:write'] }) }),
    );
    assertDocumented('GET', '/posts/{id}', await t.inject({ url: '/v1/posts/post_missing', key }));
    assertDocumented(
      'POST',
      '/posts',
      await t.inject({
        method: 'POST',
        url: '/v1/posts',
        key,
        payload: { content: 'z'.repeat(300), platforms: ['x'] },
      }),
    );
  });
});

describe('GET /v1/platforms', () => {
  test('lists every platform with its limits, no key needed', async () => {
    const res = await t.inject({ url: '/v1/platforms' });
    const items = (res.json() as { data: { items: Array<{ id: string; limits: { text: { max_length: number } } }> } })
      .data.items;
    assert.deepEqual(
      items.map((p) => p.id),
      ['x', 'linkedin', 'instagram', 'facebook', 'threads', 'bluesky', 'mastodon'],
    );
    assert.deepEqual(Object.fromEntries(items.map((p) => [p.id, p.limits.text.max_length])), {
      x: 280,
      linkedin: 3000,
      instagram: 2200,
      facebook: 63206,
      threads: 500,
      bluesky: 300,
      mastodon: 500,
    });
  });
});
