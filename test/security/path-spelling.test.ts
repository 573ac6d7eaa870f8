// Attack class: other spellings of a /v1 path. The router decodes percent-encoded letters and digits, collapses
// nothing else and accepts absolute-form targets (`GET http://x/v1/posts`), so a pipeline that looked at the raw
// URL let `/%761/posts` reach a /v1 handler with no key, no rate limit, no scope and no Idempotency-Key. Sent over a
// real socket, byte for byte, because inject normalises some targets before the router sees them.
import { strict as assert } from 'node:assert';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { buildTestApp, type TestApp } from '../helpers/app.ts';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One request exactly as written (request line included), on its own connection; the whole answer. */
function send(port: number, raw: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(':');
        if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    socket.write(raw);
  });
}

function request(port: number, method: string, target: string, extra: string[] = [], body = ''): Promise<RawAnswer> {
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: herald.test', 'Connection: close', ...extra];
  if (body) lines.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`);
  return send(port, `${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** The same path spelled every way an attacker might: each must reach the pipeline or no route at all. */
function spellings(path: string): string[] {
  const [, version, ...rest] = path.split('/'); // '', 'v1', 'posts', ...
  const tail = rest.join('/');
  const hex = (c: string, upper = true) => {
    const h = c.charCodeAt(0).toString(16);
    return `%${upper ? h.toUpperCase() : h}`;
  };
  const encodeAt = (s: string, i: number, upper = true) => s.slice(0, i) + hex(s[i]!, upper) + s.slice(i + 1);
  const list = [
    // Percent-encoded letters and digits, in each segment, upper- and lower-case hex.
    `/${encodeAt(version!, 0)}/${tail}`,
    `/${encodeAt(version!, 1)}/${tail}`,
    `/${encodeAt(encodeAt(version!, 1), 0)}/${tail}`,
    `/${version}/${encodeAt(tail, 0)}`,
    `/${version}/${encodeAt(tail, 1, false)}`,
    `/${version}/${encodeAt(tail, tail.length - 1)}`,
    `/${encodeAt(version!, 0, false)}/${encodeAt(tail, 0, false)}`,
    `/${[...version!].map((c) => hex(c)).join('')}/${[...tail].map((c) => (c === '/' ? c : hex(c))).join('')}`,
    // Double slashes, trailing dots and slashes, dot segments.
    `//${version}/${tail}`,
    `/${version}//${tail}`,
    `/${version}/${tail}/`,
    `/${version}./${tail}`,
    `/${version}/${tail}.`,
    `/${version}/./${tail}`,
    `/x/../${version}/${tail}`,
    `/${version}/x/../${tail}`,
    `/x/%2e%2e/${version}/${tail}`,
    `/x/%2E%2E/${version}/${tail}`,
    `/${version}/%2e/${tail}`,
    // Case.
    `/${version!.toUpperCase()}/${tail}`,
    `/${version}/${tail.toUpperCase()}`,
    // Encoded slashes.
    `/${version}%2F${tail}`,
    `/${version}%2f${tail}`,
    `%2F${version}%2F${tail}`,
    `/${version}/${tail}%2F`,
    // Absolute-form with various hosts and schemes.
    `http://x${path}`,
    `http://herald.test${path}`,
    `https://127.0.0.1${path}`,
    `http://x:80${path}`,
    `HTTP://X${path}`,
    `http://user@x${path}`,
    `http://[::1]${path}`,
    `http://x/${encodeAt(version!, 0)}/${tail}`,
    `ftp://x${path}`,
    `x${path}`,
    // A query or fragment after a re-spelled path.
    `/${encodeAt(version!, 0)}/${tail}?limit=1`,
    `/${encodeAt(version!, 0)}/${tail}#x`,
  ];
  return [...new Set(list)];
}

function assertRefused(answer: RawAnswer, what: string): void {
  assert.ok([400, 401, 404, 405].includes(answer.status), `${what}: status ${answer.status} ${answer.body}`);
  let parsed: { success?: boolean; error?: { code?: string }; request_id?: string };
  try {
    parsed = JSON.parse(answer.body) as typeof parsed;
  } catch {
    assert.fail(`${what}: body is not JSON: ${answer.body}`);
  }
  assert.equal(parsed.success, false, `${what}: not the envelope: ${answer.body}`);
  assert.match(parsed.error?.code ?? '', /^PUBLIC_API_/, `${what}: ${answer.body}`);
  assert.equal(typeof parsed.request_id, 'string', `${what}: ${answer.body}`);
}

describe('other spellings of a /v1 path', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    // Every spelling below is refused from one IP: a budget large enough that 429 never hides the answer.
    t = await buildTestApp({ env: { HERALD_RATE_LIMIT_ANON_PER_MIN: '100000' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  after(() => t.close());

  test('GET of a key-protected list, spelled any way, without a key: 400, 401 or 404 in the envelope, never 2xx or 500', async () => {
    for (const path of ['/v1/posts', '/v1/workspaces']) {
      for (const target of spellings(path)) {
        const answer = await request(port, 'GET', target);
        assertRefused(answer, `GET ${target}`);
        // A spelling that reached the route was counted against the caller's anonymous budget.
        if (answer.status === 401) assert.match(answer.headers.ratelimit ?? '', /^"anonymous";/, target);
      }
    }
  });

  test('POST of a mutation, spelled any way, without a key: 400, 401 or 404 in the envelope, never 2xx or 500', async () => {
    const body = JSON.stringify({ content: 'hello', platforms: ['x'] });
    for (const path of ['/v1/posts', '/v1/posts/validate']) {
      for (const target of spellings(path)) {
        const answer = await request(port, 'POST', target, ['Idempotency-Key: k-1'], body);
        assertRefused(answer, `POST ${target}`);
      }
    }
  });

  test('a re-spelled path with a key still passes every step of the pipeline: scope, then Idempotency-Key', async () => {
    const readOnly = await t.key({ scopes: ['posts:read'] });
    const writer = await t.key();
    const body = JSON.stringify({ content: 'hello', platforms: ['x'] });
    const scoped = await request(
      port,
      'POST',
      '/%761/posts',
      [`Authorization: Bearer ${readOnly}`, 'Idempotency-Key: s-1'],
      body,
    );
    assert.equal(scoped.status, 403, scoped.body);
    assert.equal((JSON.parse(scoped.body) as { error: { code: string } }).error.code, 'PUBLIC_API_SCOPE_FORBIDDEN');
    const noKey = await request(port, 'POST', '/v%31/posts', [`Authorization: Bearer ${writer}`], body);
    assert.equal(noKey.status, 400, noKey.body);
    assert.equal((JSON.parse(noKey.body) as { error: { code: string } }).error.code, 'PUBLIC_API_IDEMPOTENCY_REQUIRED');
    const read = await request(port, 'GET', '/%76%31/workspaces', [`Authorization: Bearer ${writer}`]);
    assert.equal(read.status, 200, read.body);
    assert.match(read.headers.ratelimit ?? '', /^"read";/, "a re-spelled read spends the key's read budget");
  });

  test('an absolute-form target is refused with 400 before any handler runs, even with a valid key', async () => {
    const key = await t.key();
    for (const target of ['http://herald.test/v1/workspaces', 'http://x/v1/workspaces', 'http://x/health/live']) {
      const answer = await request(port, 'GET', target, [`Authorization: Bearer ${key}`]);
      assert.equal(answer.status, 400, `${target}: ${answer.body}`);
      assertRefused(answer, target);
    }
  });

  test('no spelling leaves an unhandled-error line in the log', () => {
    const failures = t.logs.filter((l) => l.msg === 'unhandled error' || l.msg === 'request failed');
    assert.deepEqual(failures, []);
  });
});
