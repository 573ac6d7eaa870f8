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
      [
        'x',
        'linkedin',
        'instagram',
        'facebook',
        'threads',
        'bluesky',
        'mastodon',
        'tiktok',
        'youtube',
        'pinterest',
        'googlebusiness',
      ],
    );
    assert.deepEqual(Object.fromEntries(items.map((p) => [p.id, p.limits.text.max_length])), {
      x: 280,
      linkedin: 3000,
      instagram: 2200,
      facebook: 63206,
      threads: 500,
      bluesky: 300,
      mastodon: 500,
      tiktok: 2200,
      youtube: 5000,
      pinterest: 500,
      googlebusiness: 1500,
    });
  });
});

// ---- the description says exactly what the server does (docs/conventions.md "Adding an endpoint") ------------

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const full = () => doc as unknown as Json;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
/** POSTs that store nothing and so take no Idempotency-Key (docs/decisions.md). */
const DRY_RUNS = new Set(['post /posts/validate', 'post /automations/{id}/preview', 'post /queues/{id}/suggest-slots']);
function* allOperations(): Generator<[string, string, Json]> {
  for (const [path, item] of Object.entries(full().paths as Json))
    for (const method of METHODS) if (item[method]) yield [path, method, item[method]];
}
const resolve = (schema: Json | undefined): Json | undefined =>
  schema?.$ref ? full().components.schemas[String(schema.$ref).split('/').pop()!] : schema;
const isInlineObject = (schema: Json | undefined) =>
  schema !== undefined && !schema.$ref && Object.keys(schema.properties ?? {}).length > 0;

describe('the description is exact', () => {
  test('GET /v1/openapi and /v1/openapi.json are in the document they serve', () => {
    assert.ok(full().paths['/openapi'].get.responses['200'].content['application/yaml']);
    assert.ok(full().paths['/openapi.json'].get.responses['200'].content['application/json']);
  });

  test('actions and DELETEs declare no body, and the server takes none, `{}`, or no Content-Type', async () => {
    let actions = 0;
    for (const [path, method, op] of allOperations()) {
      const body = op.requestBody;
      if (body?.required) {
        const schema = resolve(body.content['application/json'].schema)!;
        assert.ok(
          Object.keys(schema.properties ?? {}).length > 0 || schema.anyOf || schema.allOf,
          `${method} ${path} requires a body that can be empty`,
        );
      }
      if (method === 'delete' || /\/(publish|cancel|retry|test|refresh|complete)$/.test(path)) {
        assert.equal(body, undefined, `${method} ${path} declares no request body`);
        assert.match(op.description, /Takes no request body/);
        actions++;
      }
    }
    assert.ok(actions >= 10, `${actions} actions`);
    assert.equal(full().paths['/webhooks/{id}/rotate-secret'].post.requestBody.required, false);
    for (const payload of [undefined, '', '{}']) {
      const created = await t.inject({
        method: 'POST',
        url: '/v1/posts',
        key,
        payload: { content: 'no body', platforms: ['x'], schedule_at: new Date(Date.now() + 3_600_000).toISOString() },
      });
      const id = created.json().data.post_id;
      const res = await t.inject({ method: 'POST', url: `/v1/posts/${id}/cancel`, key, payload });
      assert.equal(res.statusCode, 200, `cancel with ${JSON.stringify(payload)}: ${res.body}`);
    }
  });

  test('response headers are described wherever they are sent; Idempotency-Key is a shared parameter', () => {
    const components = full().components;
    assert.equal(components.parameters.IdempotencyKey.name, 'Idempotency-Key');
    assert.ok(components.parameters.IdempotencyKey.example, 'the curl sample carries a key, not an empty one');
    for (const [path, method, op] of allOperations()) {
      for (const [status, response] of Object.entries(op.responses as Json)) {
        for (const h of ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'])
          assert.ok(response.headers?.[h], `${method} ${path} ${status} describes ${h}`);
        assert.ok(response.headers.RateLimit && response.headers['RateLimit-Policy']);
        if (status === '429' || status === '503') assert.ok(response.headers['Retry-After'], `${path} ${status}`);
      }
      const mutates = (op.parameters ?? []).some((p: Json) => p.$ref === '#/components/parameters/IdempotencyKey');
      if (op['x-herald-scopes'] && method !== 'get' && !DRY_RUNS.has(`${method} ${path}`))
        assert.ok(mutates, `${method} ${path} takes the shared Idempotency-Key`);
      if (mutates)
        for (const [status, response] of Object.entries(op.responses as Json))
          // Only 2xx answers are stored under a key, so only they can be replays.
          if (status.startsWith('2')) assert.ok(response.headers['Idempotent-Replayed'], `${method} ${path}`);
          else assert.equal(response.headers['Idempotent-Replayed'], undefined, `${method} ${path} ${status}`);
    }
  });

  test('every request body and response payload is a named schema', () => {
    const inline: string[] = [];
    for (const [path, method, op] of allOperations()) {
      const body = op.requestBody?.content['application/json']?.schema;
      if (body && !body.$ref) inline.push(`${method} ${path} request body`);
      for (const [status, response] of Object.entries(op.responses as Json)) {
        const schema = response.content?.['application/json']?.schema;
        if (!schema || schema.$ref) continue;
        // The envelope itself stays inline: `{ success, data, request_id }` around a named `data`.
        const data = schema.properties?.data;
        if (!data || isInlineObject(data) || (!data.$ref && data.type !== 'object'))
          inline.push(`${method} ${path} ${status} data`);
      }
    }
    assert.deepEqual(inline, [], 'name these with named() (src/app/envelope.ts)');
    for (const name of [
      'Workspace',
      'Platform',
      'PostPage',
      'UploadInstructions',
      'CreatePostRequest',
      'Post',
      'Target',
      'Part',
      'Media',
      'Connection',
      'WebhookEndpoint',
      'WebhookDelivery',
      'ErrorEnvelope',
    ])
      assert.ok(full().components.schemas[name], `${name} is a component`);
  });

  test('every operation has a request and a response example, and each is valid against its schema', () => {
    const problems: string[] = [];
    const check = (where: string, value: unknown, pointerPath: string) => {
      const validate = ajv.getSchema(`openapi#/${pointerPath}`);
      if (!validate) return problems.push(`${where}: no schema`);
      if (!validate(value)) problems.push(`${where}: ${JSON.stringify(validate.errors?.slice(0, 2))}`);
    };
    for (const [path, method, op] of allOperations()) {
      for (const [type, media] of Object.entries((op.requestBody?.content ?? {}) as Json)) {
        if (media.example === undefined) problems.push(`${method} ${path} request body has no example`);
        else
          check(
            `${method} ${path} request`,
            media.example,
            pointer('paths', path, method, 'requestBody', 'content', type, 'schema'),
          );
      }
      for (const p of op.parameters ?? [])
        if (p.in === 'path' && p.example === undefined)
          problems.push(`${method} ${path} parameter ${p.name} has no example`);
      for (const [status, response] of Object.entries(op.responses as Json)) {
        for (const [type, media] of Object.entries((response.content ?? {}) as Json)) {
          if (media.example === undefined) problems.push(`${method} ${path} ${status} has no example`);
          else if (type.includes('json'))
            check(
              `${method} ${path} ${status}`,
              media.example,
              pointer('paths', path, method, 'responses', status, 'content', type, 'schema'),
            );
        }
      }
    }
    for (const [name, schema] of Object.entries(full().components.schemas as Json))
      for (const [i, example] of (schema.examples ?? []).entries())
        check(`components.schemas.${name} example ${i}`, example, pointer('components', 'schemas', name));
    assert.deepEqual(problems, []);
  });

  test('feature-gated values say so: pending_approval, and event types of areas not built yet', () => {
    const status = full().components.schemas.Post.properties.status;
    assert.match(status.description, /pending_approval.*approval policy/);
    // A reserved type (its area not built) says so; there may be none left once every area emits its types.
    const webhooks = full().webhooks as Json;
    const notYet = Object.values(webhooks).filter((w: Json) => w.post['x-herald-not-yet-emitted']);
    for (const w of notYet) assert.match(w.post.description, /not emitted yet/i);
    // The inbox emits its four types (docs/inbox.md "Events"): none is marked reserved.
    for (const type of [
      'inbox.item.created',
      'inbox.item.replied',
      'inbox.reply.failed',
      'inbox.automation.triggered',
    ]) {
      assert.ok(webhooks[type], `${type} is in the webhooks section`);
      assert.equal(webhooks[type].post['x-herald-not-yet-emitted'], undefined, `${type} is emitted`);
      assert.doesNotMatch(webhooks[type].post.description, /not emitted yet/i);
    }
  });

  test('the upload PUT is described as a callback of the operations returning a signed URL', () => {
    const callback =
      full().paths['/media/upload-url'].post.callbacks.upload['{$response.body#/data/upload/signed_url}'];
    assert.ok(callback.put.responses['200'] && callback.put.responses['422'] && callback.put.responses['403']);
  });
});

describe('enumerated list filters', () => {
  test('status is an array of an enum; `a,b` and repeated parameters are both accepted', async () => {
    const param = full().paths['/posts'].get.parameters.find((p: Json) => p.name === 'status');
    assert.equal(param.schema.type, 'array');
    assert.ok(param.schema.items.enum.includes('scheduled'));
    const csv = await t.inject({ url: '/v1/posts?status=scheduled,failed', key });
    const repeated = await t.inject({ url: '/v1/posts?status=scheduled&status=failed', key });
    assert.equal(csv.statusCode, 200, csv.body);
    assert.equal(repeated.statusCode, 200, repeated.body);
    assert.deepEqual(csv.json().data.items, repeated.json().data.items);
    for (const item of csv.json().data.items) assert.ok(['scheduled', 'failed'].includes(item.status));
  });

  test('an unknown value is a 400 in the envelope naming the allowed values, never a regex', async () => {
    for (const url of ['/v1/posts?status=sheduled', '/v1/posts?status=scheduled,sheduled', '/v1/media?kind=gif']) {
      const res = await t.inject({ url, key });
      assert.equal(res.statusCode, 400, url);
      const error = res.json().error;
      assert.equal(error.code, 'PUBLIC_API_QUERY_INVALID');
      const text = JSON.stringify(error);
      assert.doesNotMatch(text, /\^\(|must match pattern/, 'no raw regex');
      assert.match(text, /must be one of/);
    }
  });
});
