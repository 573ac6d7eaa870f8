// Property-based fuzzing of every /v1 endpoint in the OpenAPI description: random and malformed bodies,
// headers and query strings never produce a 5xx or a body outside the envelope, each fault gets the catalogue
// code of its kind, and the server logs no unhandled error. The seed is printed so a failure can be replayed
// (FUZZ_SEED=<n> npm test).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ERROR_CATALOGUE } from '../src/app/errors.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { operationsOf, type Operation } from './helpers/openapi-operations.ts';

let t: TestApp;
let key: string;
let postId: string;
let operations: Operation[];

before(async () => {
  t = await buildTestApp({
    env: {
      HERALD_RATE_LIMIT_WRITE_PER_MIN: '1000000',
      HERALD_RATE_LIMIT_READ_PER_MIN: '1000000',
      HERALD_RATE_LIMIT_ANON_PER_MIN: '1000000',
    },
  });
  key = await t.key();
  postId = (
    await t.inject({ method: 'POST', url: '/v1/posts', key, payload: { content: 'fuzz target', platforms: ['x'] } })
  ).json().data.post_id;
  operations = operationsOf(t.app.swagger());
});
after(() => t.close());

type Fault =
  | 'none'
  | 'malformed_json'
  | 'invalid_utf8'
  | 'wrong_content_type'
  | 'bad_token'
  | 'no_auth'
  | 'bad_workspace'
  | 'bad_idempotency'
  | 'unknown_query';

const expected: Record<Exclude<Fault, 'none'>, string[]> = {
  malformed_json: ['PUBLIC_API_BODY_INVALID'],
  invalid_utf8: ['PUBLIC_API_BODY_INVALID'],
  wrong_content_type: ['PUBLIC_API_UNSUPPORTED_MEDIA_TYPE'],
  bad_token: ['PUBLIC_API_KEY_INVALID', 'PUBLIC_API_AUTH_REQUIRED'],
  no_auth: ['PUBLIC_API_AUTH_REQUIRED'],
  bad_workspace: ['PUBLIC_API_WORKSPACE_FORBIDDEN'],
  bad_idempotency: ['PUBLIC_API_IDEMPOTENCY_REQUIRED'],
  unknown_query: ['PUBLIC_API_QUERY_INVALID'],
};

const printable = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_.'.split('')),
  minLength: 1,
  maxLength: 20,
});

test('no input makes any /v1 endpoint answer 5xx or leave the envelope; each fault gets its code', async () => {
  const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
  console.log(`# fuzz seed ${seed} (replay with FUZZ_SEED=${seed})`);
  const counts: Record<string, number> = {};
  const arbitrary = fc.record({
    op: fc.integer({ min: 0, max: 10_000 }),
    fault: fc.constantFrom<Fault>(
      'none',
      'none',
      'none',
      'malformed_json',
      'invalid_utf8',
      'wrong_content_type',
      'bad_token',
      'no_auth',
      'bad_workspace',
      'bad_idempotency',
      'unknown_query',
    ),
    body: fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.record(
        {
          content: fc.string({ maxLength: 400 }),
          platforms: fc.array(fc.constantFrom('x', 'bluesky', 'mastodon', 'linkedin', 'myspace'), { maxLength: 3 }),
          schedule_at: fc.option(fc.date({ noInvalidDate: true }).map((d) => d.toISOString())),
          publish_now: fc.option(fc.boolean()),
        },
        { requiredKeys: [] },
      ),
    ),
    query: fc.dictionary(
      fc.constantFrom('limit', 'cursor', 'status', 'sort', 'platform', 'brand_id', 'scheduled_from', 'created_to'),
      fc.oneof(fc.string({ maxLength: 30 }), fc.integer().map(String)),
      { maxKeys: 3 },
    ),
    junk: fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.uint8Array({ maxLength: 50 }).map((b) => Buffer.from(b).toString('latin1')),
    ),
    name: printable,
    // '.' and '..' are path segments that URL normalisation removes, so they would change the route, not the id.
    id: fc.oneof(
      fc.constant('POST'),
      printable.filter((s) => !/^\.+$/.test(s)),
    ),
  });

  await fc.assert(
    fc.asyncProperty(arbitrary, async (input) => {
      const op = operations[input.op % operations.length]!;
      const fault: Fault = applicable(op, input.fault) ? input.fault : 'none';
      counts[fault] = (counts[fault] ?? 0) + 1;
      const url = `/v1${op.path.replace(/\{[a-z_]+\}/g, input.id === 'POST' ? postId : encodeURIComponent(input.id))}`;
      const headers: Record<string, string> = {
        authorization: `Bearer ${key}`,
        'idempotency-key': `fuzz-${Math.random()}`,
      };
      let payload: string | Buffer | undefined = op.hasBody ? JSON.stringify(input.body) : undefined;
      if (op.hasBody) headers['content-type'] = 'application/json';
      let query = new URLSearchParams(input.query).toString();
      switch (fault) {
        case 'malformed_json':
          payload = `{"content": ${JSON.stringify(input.junk)}`;
          break;
        case 'invalid_utf8':
          payload = Buffer.concat([Buffer.from('{"content":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')]);
          break;
        case 'wrong_content_type':
          headers['content-type'] = 'text/plain';
          payload = `content=${input.name}`;
          break;
        case 'bad_token':
          headers.authorization = `Bearer ${input.junk.replace(/[^\x21-\x7e]/g, '') || 'x'}`;
          break;
        case 'no_auth':
          delete headers.authorization;
          break;
        case 'bad_workspace':
          headers['x-herald-workspace-id'] = input.name;
          break;
        case 'bad_idempotency':
          headers['idempotency-key'] = 'x'.repeat(256) + input.name;
          break;
        case 'unknown_query':
          query = `${query ? `${query}&` : ''}zz_${input.name}=1`;
          break;
      }
      const res = await t.inject({
        method: op.method as 'GET',
        url: query ? `${url}?${query}` : url,
        headers,
        payload,
      });
      assert.ok(res.statusCode < 500, `${op.method} ${url} (${fault}) → ${res.statusCode}: ${res.body.slice(0, 300)}`);
      // The API descriptions (full and action profile) are documents, not envelopes.
      if (op.path.startsWith('/openapi')) return;
      // A download (the analytics CSV export, a YAML description) answers in its own format when it succeeds; its
      // errors are envelopes like every other.
      if (res.statusCode < 400 && !String(res.headers['content-type']).startsWith('application/json')) return;
      const body = res.json();
      assert.equal(typeof body.success, 'boolean');
      assert.equal(body.request_id, res.headers['x-request-id']);
      assert.ok(res.headers['x-ratelimit-limit']);
      if (res.statusCode >= 400) {
        assert.equal(body.success, false);
        assert.ok(body.error.code in ERROR_CATALOGUE, body.error.code);
        assert.equal(ERROR_CATALOGUE[body.error.code as keyof typeof ERROR_CATALOGUE].status, res.statusCode);
        if (fault !== 'none')
          assert.ok(
            expected[fault].includes(body.error.code),
            `${op.method} ${url} with ${fault} → ${body.error.code}`,
          );
      } else {
        assert.equal(body.success, true);
        assert.equal(fault, 'none', `${op.method} ${url} accepted a request with ${fault}`);
      }
    }),
    { numRuns: Number(process.env.FUZZ_RUNS ?? 600), seed },
  );
  console.log(`# fuzz runs by fault: ${JSON.stringify(counts)}`);
  const errors = t.logs.filter((l) => l.level >= 50);
  assert.deepEqual(errors, [], 'no unhandled error in the server log');
});

/** Whether a fault can be put into a request for this operation (and is reached before another check). */
function applicable(op: Operation, fault: Fault): boolean {
  switch (fault) {
    case 'malformed_json':
    case 'invalid_utf8':
      return op.hasBody && !op.public;
    case 'wrong_content_type':
      return op.hasBody && !op.action && !op.public;
    case 'bad_token':
    case 'no_auth':
      return !op.public;
    case 'bad_workspace':
      return !op.public && op.path !== '/workspaces';
    case 'bad_idempotency':
      return op.mutates;
    case 'unknown_query':
      return op.hasQuery && !op.public;
    default:
      return true;
  }
}
