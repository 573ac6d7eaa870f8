// Fuzzing every endpoint of the OpenAPI description over real HTTP against a `herald serve --role api` process:
// bodies generated from each operation's schema (valid in shape) and random ones, huge and deeply nested JSON,
// invalid UTF-8 in bodies, query strings and header values, junk headers and ids. No answer may be a 5xx, every
// /v1 answer must be a well-formed envelope, and the server must log no unhandled error. Replay a failure with
// FUZZ_SEED=<seed> (printed); HERALD_REL_FUZZ_RUNS sets the number of requests.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fc from 'fast-check';
import { ERROR_CATALOGUE } from '../../src/app/errors.ts';
import { operationsOf, type Operation, type SchemaNode } from '../helpers/openapi-operations.ts';
import { call, recordFigures, startFleet, type Fleet } from './harness.ts';

let fleet: Fleet;
let base: string;
let key: string;
let postId: string;
let operations: Operation[];
let components: Record<string, SchemaNode> = {};

before(async () => {
  fleet = await startFleet({
    apis: 1,
    workers: 0,
    env: {
      HERALD_RATE_LIMIT_WRITE_PER_MIN: '1000000',
      HERALD_RATE_LIMIT_READ_PER_MIN: '1000000',
      HERALD_RATE_LIMIT_ANON_PER_MIN: '1000000',
    },
  });
  base = fleet.urls[0]!;
  key = await fleet.t.key();
  postId = (
    await call(`${base}/v1/posts`, {
      method: 'POST',
      key,
      idem: 'fuzz-target',
      body: { content: 'fuzz target', platforms: ['x'] },
    })
  ).json!.data!.post_id!;
  const doc = (await call(`${base}/v1/openapi.json`)).json as unknown as {
    components?: { schemas?: Record<string, SchemaNode> };
  };
  operations = operationsOf(doc);
  components = doc.components?.schemas ?? {};
  assert.ok(operations.length > 10, `the description lists ${operations.length} operations`);
});
after(async () => {
  await fleet?.close();
});

/** An arbitrary for values of a JSON Schema (the subset TypeBox emits), so bodies reach the handlers. */
function fromSchema(node: SchemaNode | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!node || depth > 6) return fc.jsonValue({ maxDepth: 2 });
  if (node.$ref) return fromSchema(components[node.$ref.split('/').at(-1)!], depth + 1);
  if (node.const !== undefined) return fc.constant(node.const);
  if (node.enum) return fc.constantFrom(...node.enum);
  const choices = node.anyOf ?? node.oneOf;
  if (choices) return fc.oneof(...choices.map((c) => fromSchema(c, depth + 1)));
  const type = Array.isArray(node.type) ? node.type[0] : node.type;
  switch (type) {
    case 'string':
      if (node.format === 'date-time')
        return fc
          .date({ min: new Date('2020-01-01'), max: new Date('2035-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString());
      if (node.format === 'uri') return fc.constantFrom('https://example.com/hook', 'http://127.0.0.1/x', 'not a url');
      return fc.string({ minLength: node.minLength ?? 0, maxLength: Math.min(node.maxLength ?? 60, 400) });
    case 'integer':
      return fc.integer({ min: node.minimum ?? -1000, max: node.maximum ?? 1000 });
    case 'number':
      return fc.double({ min: node.minimum ?? -1e6, max: node.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(fromSchema(node.items, depth + 1), {
        minLength: node.minItems ?? 0,
        maxLength: Math.max(node.minItems ?? 0, Math.min(node.maxItems ?? 3, 3)),
      });
    case 'object': {
      const props = node.properties ?? {};
      const model = Object.fromEntries(Object.entries(props).map(([name, sub]) => [name, fromSchema(sub, depth + 1)]));
      return fc.record(model, { requiredKeys: (node.required ?? []).filter((r) => r in props) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

type Kind =
  | 'schema_body'
  | 'random_json'
  | 'huge_json'
  | 'deep_json'
  | 'invalid_utf8_body'
  | 'invalid_utf8_query'
  | 'invalid_utf8_path'
  | 'junk_headers'
  | 'junk_query'
  | 'junk_id'
  | 'no_auth';
const KINDS: Kind[] = [
  'schema_body',
  'schema_body',
  'schema_body',
  'random_json',
  'huge_json',
  'deep_json',
  'invalid_utf8_body',
  'invalid_utf8_query',
  'invalid_utf8_path',
  'junk_headers',
  'junk_query',
  'junk_id',
  'no_auth',
];

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** node:http rather than fetch: it sends raw bytes (latin1) in paths and header values, as a hostile client can. */
function send(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<Raw> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        insecureHTTPParser: false,
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    // A server that answered before reading the whole body (413) may close while we still write: the answer counts.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    if (body) req.write(body);
    req.end();
  });
}

/** What is wrong with an answer (nothing: undefined). */
function fault(res: Raw, path: string): string | undefined {
  if (res.status >= 500) return `status ${res.status}`;
  // A download (the analytics CSV export) answers in its own format when it succeeds; its errors are envelopes.
  const download = res.status < 400 && !String(res.headers['content-type'] ?? '').startsWith('application/json');
  if (!path.startsWith('/v1/openapi') && !download) {
    let body: {
      success?: unknown;
      request_id?: unknown;
      error?: { code?: string; message?: unknown; retryable?: unknown; doc_url?: unknown };
    };
    try {
      body = JSON.parse(res.body.toString('utf8')) as typeof body;
    } catch {
      return `status ${res.status} with a body that is not JSON: ${res.body.toString('utf8').slice(0, 120)}`;
    }
    if (typeof body.success !== 'boolean') return 'no success field';
    if (typeof body.request_id !== 'string' || body.request_id !== res.headers['x-request-id'])
      return 'request_id missing or not the X-Request-Id header';
    if (res.status >= 400) {
      const code = body.error?.code;
      if (body.success !== false || !code || !(code in ERROR_CATALOGUE))
        return `error code ${code} not in the catalogue`;
      if (ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE].status !== res.status)
        return `${code} answered with ${res.status}`;
      if (
        typeof body.error?.message !== 'string' ||
        typeof body.error.retryable !== 'boolean' ||
        typeof body.error.doc_url !== 'string'
      )
        return 'error without message, retryable or doc_url';
    } else if (body.success !== true) return `${res.status} with success ${String(body.success)}`;
  }
  return undefined;
}

test('no request to any endpoint gets a 5xx or an answer outside the envelope', { timeout: 300_000 }, async () => {
  const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
  const runs = Number(process.env.HERALD_REL_FUZZ_RUNS ?? 1500);
  console.log(`# fuzz seed ${seed} (replay with FUZZ_SEED=${seed}), ${runs} requests, ${operations.length} operations`);
  const junk = fc.oneof(
    fc.string({ maxLength: 80 }),
    fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.from(b).toString('latin1')),
  );
  const inputs = fc.sample(
    fc.record({
      op: fc.nat(),
      kind: fc.constantFrom(...KINDS),
      random: fc.jsonValue({ maxDepth: 4 }),
      junk,
      junk2: junk,
      depth: fc.integer({ min: 500, max: 20_000 }),
      salt: fc.nat(),
    }),
    { numRuns: runs, seed },
  );

  const counts: Record<string, number> = {};
  const statuses: Record<string, number> = {};
  const problems: string[] = [];
  let fiveHundreds = 0;
  let cutWhileSending = 0;
  const one = async (input: (typeof inputs)[number]) => {
    const op = operations[input.op % operations.length]!;
    counts[input.kind] = (counts[input.kind] ?? 0) + 1;
    const badSegment = input.salt % 2 ? '%FF%C3%28' : Buffer.from([0x70, 0xe9, 0xff]).toString('latin1');
    const id =
      input.kind === 'junk_id'
        ? encodeURIComponent(input.junk || 'x')
        : input.kind === 'invalid_utf8_path'
          ? badSegment
          : postId;
    let path = `/v1${op.path.replace(/\{[a-z_]+\}/g, id)}`;
    if (input.kind === 'invalid_utf8_path' && !op.path.includes('{')) path = `${path}/${badSegment}`;
    const headers: Record<string, string> = {
      authorization: `Bearer ${key}`,
      'idempotency-key': `fuzz-${input.salt}-${Math.random()}`,
    };
    let body: Buffer | undefined;
    if (op.hasBody) {
      headers['content-type'] = 'application/json';
      body = Buffer.from(
        JSON.stringify(fc.sample(fromSchema(op.bodySchema), { numRuns: 1, seed: input.salt })[0] ?? {}),
      );
    }
    const query = new URLSearchParams();
    for (const name of op.queryNames) if (input.salt % 2 === 0) query.set(name, input.junk2);
    switch (input.kind) {
      case 'random_json':
        body = Buffer.from(JSON.stringify(input.random));
        headers['content-type'] = 'application/json';
        break;
      case 'huge_json':
        body = Buffer.from(JSON.stringify({ content: 'h'.repeat(1_200_000) }));
        headers['content-type'] = 'application/json';
        break;
      case 'deep_json':
        body = Buffer.from(
          input.salt % 2
            ? `${'['.repeat(input.depth)}1${']'.repeat(input.depth)}`
            : `${'{"a":'.repeat(input.depth)}1${'}'.repeat(input.depth)}`,
        );
        headers['content-type'] = 'application/json';
        break;
      case 'invalid_utf8_body':
        body = Buffer.concat([
          Buffer.from('{"content":"'),
          Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]),
          Buffer.from('"}'),
        ]);
        headers['content-type'] = 'application/json';
        break;
      case 'invalid_utf8_query':
        path = `${path}?${op.queryNames[0] ?? 'q'}=%FF%FE%C3%28&x=${Buffer.from([0xe9, 0xff]).toString('latin1')}`;
        break;
      case 'junk_headers':
        headers[
          [
            'authorization',
            'idempotency-key',
            'x-herald-workspace-id',
            'x-herald-brand-id',
            'content-type',
            'accept',
            'x-request-id',
          ][input.salt % 7]!
        ] = input.junk.replace(/[^\t\x20-\x7e\x80-\xff]/g, '') || ' ';
        headers['x-fuzz'] = input.junk2
          .replace(/[^\t\x20-\x7e\x80-\xff]/g, '')
          .repeat(20)
          .slice(0, 8000);
        break;
      case 'junk_query':
        query.set(`zz${input.salt}`, input.junk);
        query.set('limit', input.junk2);
        break;
      case 'no_auth':
        delete headers.authorization;
        break;
    }
    const qs = query.toString();
    if (qs && input.kind !== 'invalid_utf8_query') path = `${path}${path.includes('?') ? '&' : '?'}${qs}`;
    if (
      !op.hasBody &&
      input.kind !== 'huge_json' &&
      input.kind !== 'deep_json' &&
      input.kind !== 'random_json' &&
      input.kind !== 'invalid_utf8_body'
    )
      body = undefined;
    let res: Raw;
    try {
      res = await send(op.method, path, headers, op.method === 'GET' || op.method === 'HEAD' ? undefined : body);
    } catch (error) {
      // A body over the limit may be refused by closing the connection before its answer reaches us (the
      // answer, a 413 envelope, then dies with the socket): counted, not a fault. Anything else is one.
      const code = (error as NodeJS.ErrnoException).code;
      if (input.kind === 'huge_json' && (code === 'EPIPE' || code === 'ECONNRESET')) {
        cutWhileSending++;
        return;
      }
      problems.push(`${op.method} ${path.slice(0, 100)} (${input.kind}): ${(error as Error).message}`);
      return;
    }
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    if (res.status >= 500) fiveHundreds++;
    if (op.method === 'HEAD') return;
    const wrong = fault(res, path);
    if (wrong) problems.push(`${op.method} ${path.slice(0, 100)} (${input.kind}): ${wrong}`);
  };
  // Four requests in flight at a time: some concurrency without drowning a shared 2-core machine.
  for (let i = 0; i < inputs.length; i += 4) await Promise.all(inputs.slice(i, i + 4).map(one));

  const logged = fleet.apis[0]!.output()
    .split('\n')
    .filter((l) => l.startsWith('{') && (JSON.parse(l) as { level: number }).level >= 50);
  console.log(`# fuzz requests by kind: ${JSON.stringify(counts)}`);
  console.log(`# fuzz answers by status: ${JSON.stringify(statuses)}`);
  recordFigures('fuzz of every OpenAPI operation', {
    requests: inputs.length,
    faults: inputs.length - (counts.schema_body ?? 0),
    lost: 0,
    duplicates: 0,
    unexpected5xx: fiveHundreds,
    notes: `${problems.length} answers outside the envelope; ${cutWhileSending} oversized bodies cut by the server while being sent; seed ${seed}`,
  });
  assert.deepEqual(problems.slice(0, 15), []);
  assert.equal(fiveHundreds, 0);
  assert.deepEqual(logged.slice(0, 5), [], 'no unhandled error in the server log');
});
