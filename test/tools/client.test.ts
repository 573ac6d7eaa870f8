// The official TypeScript client (clients/typescript, published as @herald/client), tested as a user gets it:
// built, packed with `npm pack`, installed from the tarball into a scratch project, type-checked there under
// `tsc --strict` and run against a running `herald serve` — the core flow (a scheduled post, a list by status, an
// upload through the signed URL, the media attached, published, read back published). A client that
// @hey-api/openapi-ts generates from the description the server serves must type-check and run the same flow.
// Needs `npm ci --prefix clients/typescript` (its generators and TypeScript 5) and npm's cache or registry.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateWebhookSecret, signatureHeaders } from '../../src/features/webhooks/signing.ts';
import { buildTestApp, TEST_SECRET, type TestApp } from '../helpers/app.ts';
import { png } from '../helpers/media-fixtures.ts';
import { freePort } from '../helpers/ports.ts';
import { spawnHerald, type HeraldProcess } from '../helpers/processes.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CLIENT = path.join(ROOT, 'clients', 'typescript');
const TSC = path.join(CLIENT, 'node_modules', 'typescript', 'bin', 'tsc');
/** The repository's own TypeScript (6), besides the client's 5: the published declarations must suit both. */
const TSC_ROOT = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const HEY_API = path.join(CLIENT, 'node_modules', '@hey-api', 'openapi-ts', 'bin', 'run.js');
const TYPES_NODE = (
  JSON.parse(await readFile(path.join(CLIENT, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  }
).devDependencies['@types/node']!;

/** What the tests use of the packed module (imported from the scratch project's node_modules). */
interface ClientModule {
  createHerald(options: {
    baseUrl: string;
    apiKey: string;
    fetch?: (request: Request) => Promise<Response>;
    retry?: { maxRetries?: number; baseDelayMs?: number; maxRetryAfterMs?: number };
    idempotencyKeys?: boolean;
  }): {
    GET(url: string, init?: unknown): Promise<unknown>;
    POST(url: string, init?: unknown): Promise<unknown>;
    list(url: string, init?: unknown): AsyncIterable<unknown>;
    uploadFile(source: string | Blob, options: { contentType: string; filename?: string }): Promise<unknown>;
  };
  createTransport(options: {
    fetch: (request: Request) => Promise<Response>;
    retry: { maxRetries?: number; baseDelayMs?: number; maxRetryAfterMs?: number };
    idempotencyKeys: boolean;
    newKey: () => string;
    sleep: (ms: number) => Promise<void>;
  }): (request: Request) => Promise<Response>;
  HeraldError: abstract new (...args: never[]) => Error & {
    status: number;
    code: string;
    details: unknown[];
    request_id: string | null;
    retryable: boolean;
  };
  verifyWebhook(
    secret: string | string[],
    payload: string | Uint8Array,
    headers: Headers | Record<string, string>,
    options?: { now?: Date },
  ): { id: string; type: string; data: unknown };
  WebhookVerificationError: abstract new (...args: never[]) => Error;
}

interface FlowResult {
  id: string;
  createdStatus: string;
  scheduled: string[];
  media: { id: string; status: string };
  attached: string[];
  status: string;
  targets: Array<{ platform: string; status: string; url: string | null }>;
  refused?: { status: number; code: string; request_id: string | null } | null;
}

function run(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${command} ${args.join(' ')} (in ${cwd}) failed:\n${stdout}\n${stderr}`));
        else resolve({ stdout, stderr });
      },
    );
  });
}

/** A project of the client's user: an ES module package, strict TypeScript, compiled to `out/` and run. */
async function scratchProject(dir: string, packages: string[], lib = ['es2023']): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
  await writeFile(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2022',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        lib,
        types: ['node'],
        strict: true,
        skipLibCheck: false,
        outDir: 'out',
        rootDir: '.',
      },
      include: ['*.ts', 'generated'],
    }),
  );
  // The registry is reached only for what npm's cache lacks (`npm ci --prefix clients/typescript` fills it).
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...packages], dir);
}

async function typecheckAndRun(dir: string): Promise<FlowResult> {
  await run(process.execPath, [TSC, '-p', dir], dir);
  const { stdout } = await run(process.execPath, [path.join(dir, 'out', 'flow.js')], dir, {
    HERALD_URL: url,
    HERALD_KEY: key,
    HERALD_IMAGE: image,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as FlowResult;
}

function assertFlow(result: FlowResult): void {
  assert.equal(result.createdStatus, 'scheduled');
  assert.ok(result.scheduled.includes(result.id), 'the scheduled post is listed by status');
  assert.equal(result.media.status, 'ready');
  assert.deepEqual(result.attached, [result.media.id]);
  assert.equal(result.status, 'published');
  assert.deepEqual(
    result.targets.map((t) => [t.platform, t.status]),
    [['x', 'published']],
  );
  assert.ok(result.targets[0]!.url, 'the published target has its URL');
}

let tmp: string;
let image: string;
let official: string;
let client: ClientModule;
let t: TestApp | undefined;
let server: HeraldProcess | undefined;
let url: string;
let key: string;
let herald: Promise<void> | undefined;

/** `herald serve --role all` (API, worker, simulators) on a test database, started once by the first flow. */
function startHerald(): Promise<void> {
  herald ??= (async () => {
    t = await buildTestApp();
    key = await t.key();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = spawnHerald(['serve', '--role', 'all'], {
      DATABASE_URL: t.db.connectionString,
      HERALD_SECRET_KEY: TEST_SECRET,
      HOST: '127.0.0.1',
      PORT: String(port),
      HERALD_PUBLIC_URL: url,
      HERALD_DATA_DIR: path.join(tmp, 'data'),
      HERALD_WORKER_POLL_INTERVAL_MS: '200',
    });
    await server.url;
  })();
  return herald;
}

before(async () => {
  assert.ok(
    existsSync(TSC) && existsSync(HEY_API),
    'the client package is not installed: run `npm ci --prefix clients/typescript`',
  );
  tmp = await mkdtemp(path.join(tmpdir(), 'herald-client-'));
  image = path.join(tmp, 'image.png');
  await writeFile(image, png(64, 48));

  await run(process.execPath, ['scripts/build.ts'], CLIENT);
  const packed = await run('npm', ['pack', '--pack-destination', tmp, '--silent'], CLIENT);
  const tarball = path.join(tmp, packed.stdout.trim().split('\n').at(-1)!);
  official = path.join(tmp, 'official');
  await scratchProject(official, [tarball, `@types/node@${TYPES_NODE}`]);
  client = (await import(
    pathToFileURL(path.join(official, 'node_modules', '@herald', 'client', 'dist', 'index.js')).href
  )) as ClientModule;
});

after(async () => {
  await server?.stop();
  await t?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

test('the committed types are what the OpenAPI description generates', async () => {
  await run(process.execPath, ['scripts/generate.ts', '--check'], CLIENT);
});

test('the packed @herald/client type-checks under --strict in a scratch project and runs the core flow', async () => {
  await copyFile(path.join(CLIENT, 'test', 'flows', 'official.ts'), path.join(official, 'flow.ts'));
  await run(process.execPath, [TSC_ROOT, '-p', official, '--noEmit'], official);
  await startHerald();
  const result = await typecheckAndRun(official);
  assertFlow(result);
  assert.equal(result.refused?.status, 404);
  assert.equal(result.refused?.code, 'PUBLIC_API_NOT_FOUND');
  assert.match(result.refused?.request_id ?? '', /^req_/);
});

test('a client generated by @hey-api/openapi-ts from the served description type-checks and runs the flow', async () => {
  const dir = path.join(tmp, 'hey-api');
  // Its fetch client names the DOM's `BodyInit`, which @types/node does not declare: this project adds the DOM lib
  // (the official client's runs without it).
  await scratchProject(dir, [`@types/node@${TYPES_NODE}`], ['es2023', 'dom']);
  await startHerald();
  await run(
    process.execPath,
    [HEY_API, '-i', `${url}/v1/openapi.json`, '-o', path.join(dir, 'generated'), '-c', '@hey-api/client-fetch'],
    dir,
  );
  await copyFile(path.join(CLIENT, 'test', 'flows', 'hey-api.ts'), path.join(dir, 'flow.ts'));
  assertFlow(await typecheckAndRun(dir));
});

/** A fetch that answers from a script and records what it was sent. */
function scripted(answers: Array<Response | Error>) {
  const sent: Array<{ method: string; url: string; key: string | null; body: string }> = [];
  const fetch = async (request: Request) => {
    sent.push({
      method: request.method,
      url: request.url,
      key: request.headers.get('idempotency-key'),
      body: await request.text(),
    });
    const next = answers.shift();
    assert.ok(next, `an answer for call ${sent.length}`);
    if (next instanceof Error) throw next;
    return next;
  };
  return { fetch, sent };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const failure = (status: number, code: string, headers: Record<string, string> = {}) =>
  json(
    status,
    {
      success: false,
      error: { code, message: `${code} happened`, details: [{ path: '/x', message: 'bad' }], retryable: false },
      request_id: 'req_test',
    },
    headers,
  );

test('every mutating call gets an Idempotency-Key, and is retried only with that same key', async () => {
  // 409 while the first request with the key runs, then a 503, a dropped connection, then the answer.
  const { fetch, sent } = scripted([
    failure(409, 'PUBLIC_API_IDEMPOTENCY_IN_PROGRESS', { 'retry-after': '0' }),
    failure(503, 'PUBLIC_API_UNAVAILABLE'),
    new TypeError('fetch failed'),
    json(201, { success: true, data: { post_id: 'post_1' }, request_id: 'req_1' }),
  ]);
  const herald = client.createHerald({ baseUrl: 'http://herald.test', apiKey: 'hk', fetch, retry: { baseDelayMs: 1 } });
  const created = await herald.POST('/posts', { body: { content: 'hi', platforms: ['x'] } });
  assert.deepEqual(created, { post_id: 'post_1' });
  assert.equal(sent.length, 4);
  assert.match(sent[0]!.key ?? '', /^[0-9a-f-]{36}$/);
  assert.deepEqual(new Set(sent.map((s) => s.key)).size, 1, 'one key for every attempt');
  assert.deepEqual(new Set(sent.map((s) => s.body)).size, 1, 'the same body every time');
  assert.equal(sent[0]!.url, 'http://herald.test/v1/posts');

  // A key the caller gives is kept.
  const own = scripted([json(201, { success: true, data: {}, request_id: 'req_2' })]);
  await client
    .createHerald({ baseUrl: 'http://herald.test/v1', apiKey: 'hk', fetch: own.fetch })
    .POST('/posts/{id}/publish', { params: { path: { id: 'post_1' } }, headers: { 'Idempotency-Key': 'mine' } });
  assert.equal(own.sent[0]!.key, 'mine');

  // Without a key (keys switched off) a mutating call is never sent twice.
  const bare = scripted([failure(503, 'PUBLIC_API_UNAVAILABLE')]);
  const noKeys = client.createHerald({ baseUrl: 'http://h', apiKey: 'hk', fetch: bare.fetch, idempotencyKeys: false });
  await assert.rejects(noKeys.POST('/posts', { body: {} }), { code: 'PUBLIC_API_UNAVAILABLE', status: 503 });
  assert.equal(bare.sent.length, 1);
  assert.equal(bare.sent[0]!.key, null);
});

test('429 and 409 in flight honour Retry-After; a state conflict or a long Retry-After is not retried', async () => {
  const waits: number[] = [];
  const transportWith = (answers: Array<Response | Error>) => {
    const s = scripted(answers);
    const transport = client.createTransport({
      fetch: s.fetch,
      retry: { maxRetryAfterMs: 60_000 },
      idempotencyKeys: true,
      newKey: () => 'k1',
      sleep: async (ms) => void waits.push(ms),
    });
    return { transport, sent: s.sent };
  };
  const a = transportWith([
    failure(429, 'PUBLIC_API_RATE_LIMITED', { 'retry-after': '2' }),
    failure(409, 'PUBLIC_API_PUBLISH_IN_FLIGHT', { 'retry-after': '1' }),
    json(200, { success: true, data: {}, request_id: 'r' }),
  ]);
  const res = await a.transport(new Request('http://h/v1/posts/p/cancel', { method: 'POST' }));
  assert.equal(res.status, 200);
  assert.deepEqual(waits, [2000, 1000]);
  assert.deepEqual(
    a.sent.map((s) => s.key),
    ['k1', 'k1', 'k1'],
  );

  const b = transportWith([failure(409, 'PUBLIC_API_STATE_CONFLICT')]);
  assert.equal((await b.transport(new Request('http://h/v1/posts/p', { method: 'DELETE' }))).status, 409);
  assert.equal(b.sent.length, 1);
  const c = transportWith([failure(429, 'PUBLIC_API_RATE_LIMITED', { 'retry-after': '3600' })]);
  assert.equal((await c.transport(new Request('http://h/v1/posts'))).status, 429);
  assert.equal(c.sent.length, 1);
  assert.equal(c.sent[0]!.key, null, 'a GET carries no key');
});

test('an answer outside 2xx is a HeraldError with code, message, details, request_id and status', async () => {
  const { fetch } = scripted([failure(422, 'PUBLIC_API_VALIDATION_FAILED')]);
  const herald = client.createHerald({ baseUrl: 'http://h', apiKey: 'hk', fetch });
  const error = await herald.POST('/posts', { body: {} }).catch((e: unknown) => e);
  assert.ok(error instanceof client.HeraldError);
  assert.equal(error.status, 422);
  assert.equal(error.code, 'PUBLIC_API_VALIDATION_FAILED');
  assert.equal(error.message, 'PUBLIC_API_VALIDATION_FAILED happened');
  assert.deepEqual(error.details, [{ path: '/x', message: 'bad' }]);
  assert.equal(error.request_id, 'req_test');

  // The list iterator follows next_cursor until the last page.
  const pages = scripted([
    json(200, { success: true, data: { items: [{ id: 'a' }], next_cursor: 'c1', has_more: true }, request_id: 'r' }),
    json(200, { success: true, data: { items: [{ id: 'b' }], next_cursor: null, has_more: false }, request_id: 'r' }),
  ]);
  const ids: unknown[] = [];
  const lister = client.createHerald({ baseUrl: 'http://h', apiKey: 'hk', fetch: pages.fetch });
  for await (const item of lister.list('/posts', { params: { query: { limit: 1 } } })) ids.push(item);
  assert.deepEqual(ids, [{ id: 'a' }, { id: 'b' }]);
  assert.equal(new URL(pages.sent[1]!.url).searchParams.get('cursor'), 'c1');
  assert.equal(new URL(pages.sent[1]!.url).searchParams.get('limit'), '1');
});

test('an upload to an object store is completed through Herald, and a rejected media is an error', async () => {
  const ticket = {
    success: true,
    data: {
      media_id: 'med_1',
      upload: {
        signed_url: 'https://bucket.store.test/med_1?X-Amz-Signature=abc',
        method: 'PUT',
        headers: { 'Content-Type': 'image/png' },
        expires_at: '2030-01-01T00:00:00.000Z',
        max_bytes: 4,
      },
    },
    request_id: 'r',
  };
  const media = (status: string) => ({
    success: true,
    data: { id: 'med_1', object: 'media', status, failure_reason: status === 'failed' ? 'not a PNG' : null },
    request_id: 'r',
  });
  const seen: Array<{ method: string; url: string; auth: string | null; type: string | null; key: string | null }> = [];
  const store = (answers: Response[]) => async (input: Request | string | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    seen.push({
      method: request.method,
      url: request.url,
      auth: request.headers.get('authorization'),
      type: request.headers.get('content-type'),
      key: request.headers.get('idempotency-key'),
    });
    return answers.shift()!;
  };
  // The store answers the PUT with an empty 200; the client asks Herald to complete the media, then reads it.
  const fetch = store([
    json(201, ticket),
    new Response(null, { status: 200 }),
    json(200, media('pending_upload')),
    json(200, media('ready')),
  ]);
  const herald = client.createHerald({ baseUrl: 'http://h', apiKey: 'hk', fetch });
  const ready = await herald.uploadFile(new Blob([new Uint8Array([1, 2, 3, 4])]), {
    contentType: 'image/png',
    filename: 'a.png',
  });
  assert.deepEqual((ready as { status: string }).status, 'ready');
  assert.deepEqual(
    seen.map((s) => [s.method, s.url]),
    [
      ['POST', 'http://h/v1/media/upload-url'],
      ['PUT', ticket.data.upload.signed_url],
      ['POST', 'http://h/v1/media/med_1/complete'],
      ['GET', 'http://h/v1/media/med_1'],
    ],
  );
  assert.equal(seen[1]!.auth, null, 'the signed URL gets no API key');
  assert.equal(seen[1]!.type, 'image/png');
  assert.ok(seen[0]!.key && seen[2]!.key, 'both POSTs carry an Idempotency-Key');

  seen.length = 0;
  const rejected = client.createHerald({
    baseUrl: 'http://h',
    apiKey: 'hk',
    fetch: store([json(201, ticket), json(200, media('failed'))]),
  });
  await assert.rejects(
    rejected.uploadFile(new Blob([new Uint8Array([1])]), { contentType: 'image/png', filename: 'a' }),
    {
      code: 'CLIENT_MEDIA_FAILED',
      message: /not a PNG/,
    },
  );
});

test('verifyWebhook accepts what Herald signs and refuses anything else', () => {
  const secret = generateWebhookSecret();
  const body = JSON.stringify({ id: 'evt_1', type: 'post.published', created_at: 'x', workspace_id: 'w', data: {} });
  const headers = signatureHeaders('evt_1', body, [secret]);
  assert.equal(client.verifyWebhook(secret, body, { ...headers }).type, 'post.published');
  assert.equal(client.verifyWebhook(secret, Buffer.from(body), new Headers({ ...headers })).id, 'evt_1');

  // During a rotation Herald signs with both secrets; a receiver holding either, or both, accepts.
  const next = generateWebhookSecret();
  const rotated = signatureHeaders('evt_1', body, [next, secret]);
  assert.equal(client.verifyWebhook(secret, body, { ...rotated }).id, 'evt_1');
  assert.equal(client.verifyWebhook([generateWebhookSecret(), next], body, { ...rotated }).id, 'evt_1');

  const refused = (f: () => unknown) => assert.throws(f, client.WebhookVerificationError);
  refused(() => client.verifyWebhook(secret, body.replace('post.published', 'post.failed'), { ...headers }));
  refused(() => client.verifyWebhook(generateWebhookSecret(), body, { ...headers }));
  refused(() => client.verifyWebhook(secret, body, { ...headers, 'webhook-id': 'evt_2' }));
  refused(() => client.verifyWebhook(secret, body, { 'webhook-id': 'evt_1', 'webhook-timestamp': '1' }));
  const old = signatureHeaders('evt_1', body, [secret], new Date(Date.now() - 10 * 60_000));
  refused(() => client.verifyWebhook(secret, body, { ...old }));
  assert.equal(client.verifyWebhook(secret, body, { ...old }, { now: new Date(Date.now() - 10 * 60_000) }).id, 'evt_1');
});
