// Logs carry no secrets. Requests carrying every secret format Herald issues or accepts (API keys, signed upload
// URL signatures, connect-link tokens, OAuth codes, client secrets, access and refresh tokens, webhook secrets,
// session cookies, HERALD_SECRET_KEY) go through success, 4xx and 5xx paths; the captured log lines are then
// searched for each secret. Every request also leaves exactly one access line (401s and 422s included).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createLogger, formatPretty, redactSecrets } from '../src/lib/logger.ts';
import { TEST_SECRET } from './helpers/app.ts';
import { buildMediaTestApp, requestUpload, send, type MediaTestApp } from './helpers/media.ts';
import { png } from './helpers/media-fixtures.ts';

let t: MediaTestApp;
let key: string;
/** Every secret a request below carries: none may appear in any log line. */
const secrets = new Set<string>([TEST_SECRET]);
const remember = (value: string) => (secrets.add(value), value);
const random = (n = 24) => randomBytes(n).toString('base64url');

before(async () => {
  t = await buildMediaTestApp();
  key = remember(await t.key());
});
after(() => t.close());

/** The tail of a secret (the prefix such as `hk_live_` is kept on purpose, so only the random part counts). */
function secretPart(secret: string): string {
  const prefixed = /^(?:hk_(?:live|test)_|hcs_|hac_|hat_|hrt_|whsec_)(.+)$/.exec(secret);
  return prefixed ? prefixed[1]! : secret;
}

function assertNoSecretLogged(): void {
  const text = t.logs.map((line) => JSON.stringify(line)).join('\n');
  for (const secret of secrets) assert.ok(!text.includes(secretPart(secret)), `a log line carries ${secret}`);
}

function accessLines(status: number) {
  return t.logs.filter((l) => (l.msg === 'request' || l.msg === 'request failed') && l.status === status);
}

test('success, 401 and 422: one access line each, with the route pattern and no secret', async () => {
  t.logs.length = 0;
  const ok = await t.inject({ url: '/v1/posts?limit=5', key });
  assert.equal(ok.statusCode, 200, ok.body);
  assert.equal((await t.inject({ url: `/v1/posts?api_key=${key}`, key })).statusCode, 400);
  const wrongKey = remember(`hk_live_${random(22)}`);
  assert.equal((await t.inject({ url: '/v1/posts', key: wrongKey })).statusCode, 401);
  const malformed = await t.inject({ method: 'POST', url: '/v1/posts', key, payload: { text: 42, token: key } });
  assert.equal(malformed.statusCode, 400, malformed.body);
  const invalid = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: { content: `late ${key}`, platforms: ['x'], schedule_at: new Date(Date.now() - 300_000).toISOString() },
  });
  assert.equal(invalid.statusCode, 422, invalid.body);

  const [success] = accessLines(200);
  assert.equal(success?.route, '/v1/posts');
  assert.equal(success?.method, 'GET');
  assert.ok(typeof success?.key_id === 'string' && success.key_id.length > 0, JSON.stringify(success));
  assert.equal(success?.workspace_id, t.owner.workspaceId);
  assert.equal(typeof success?.duration_ms, 'number');
  assert.equal(typeof success?.request_id, 'string');
  assert.equal(accessLines(401).length, 1, 'a 401 leaves one line');
  assert.equal(accessLines(422).length, 1, 'a 422 leaves one line');
  assert.equal(accessLines(422)[0]?.route, '/v1/posts');
  assertNoSecretLogged();
});

test('signed upload URLs: their signature never reaches the log, accepted or refused', async () => {
  const res = await requestUpload(t, key, { filename: 'a.png', content_type: 'image/png', size_bytes: png().length });
  assert.equal(res.statusCode, 201, res.body);
  const signed = new URL((res.json().data as { upload: { signed_url: string } }).upload.signed_url);
  remember(signed.searchParams.get('signature')!);
  const put = (url: string, contentType: string, body: Buffer) =>
    send(url, { method: 'PUT', origin: t.origin, headers: { 'content-type': contentType }, body });
  const refused = await put(signed.href, 'text/plain', Buffer.from('x'));
  assert.ok(refused.status >= 400 && refused.status < 500, refused.body.toString());
  const stored = await put(signed.href, 'image/png', png());
  assert.ok(stored.status < 300, stored.body.toString());
  const forged = new URL(signed.href);
  forged.searchParams.set('signature', remember(random(32)));
  assert.ok((await put(forged.href, 'image/png', png())).status >= 400);
  assert.ok(t.logs.some((l) => (l.route === '/uploads/:workspaceId/:mediaId' && l.status === 200) || l.status === 204));
  assertNoSecretLogged();
});

test('connect links, OAuth codes and tokens, client secrets, webhook secrets and session cookies', async () => {
  const link = await t.inject({
    method: 'POST',
    url: '/v1/connections/connect-links',
    key,
    payload: { platform: 'x' },
  });
  assert.equal(link.statusCode, 201, link.body);
  const connectUrl = new URL((link.json().data as { url: string }).url);
  remember(connectUrl.pathname.split('/').at(-1)!);
  assert.ok((await t.inject({ url: connectUrl.pathname })).statusCode < 500);
  const code = remember(`hac_${random(32)}`);
  const state = remember(random(24));
  await t.inject({ url: `/connect/callback?code=${code}&state=${state}` });
  await t.inject({ url: `/connect/${remember(random(32))}?code=${remember(random(20))}` });

  const clientSecret = remember(`hcs_${random(32)}`);
  const refresh = remember(`hrt_${random(32)}`);
  const token = await t.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `grant_type=authorization_code&code=${code}&client_id=x&client_secret=${clientSecret}&code_verifier=${remember(random(43))}`,
  });
  assert.ok(token.statusCode >= 400 && token.statusCode < 500, token.body);
  await t.inject({
    method: 'POST',
    url: `/oauth/token?refresh_token=${refresh}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `grant_type=refresh_token&refresh_token=${refresh}`,
  });
  await t.inject({ url: `/oauth/authorize?client_id=x&state=${state}&code_challenge=${remember(random(43))}` });

  const webhook = await t.inject({
    method: 'POST',
    url: '/v1/webhooks',
    key,
    payload: { url: 'https://hooks.example.com/x', events: ['post.published'] },
  });
  const secret = (webhook.json().data as { secret?: string } | undefined)?.secret;
  if (secret) remember(secret);
  await t.inject({ url: `/v1/webhooks?secret=${remember(`whsec_${random(32)}`)}`, key });

  const session = remember(random(24));
  await t.inject({
    url: '/login',
    headers: {
      cookie: `herald_session=${session}; herald_login=${remember(random(24))}; herald_connect=${remember(random(24))}`,
    },
  });
  await t.inject({ url: `/v1/posts?x=${TEST_SECRET}`, headers: { authorization: `Basic ${remember(random(18))}` } });
  assertNoSecretLogged();
});

test('5xx: the failure and its error are logged, without the URL query or any secret', async () => {
  t.logs.length = 0;
  const original = t.container.pool.query.bind(t.container.pool);
  const failing = `/connect/${remember(random(32))}?code=${remember(random(32))}&state=${remember(random(20))}`;
  // A failure whose message itself quotes secrets, as a driver or an outbound client might.
  t.container.pool.query = (() => {
    throw new Error(`boom at ${failing} with ${key} and ${TEST_SECRET}`);
  }) as typeof t.container.pool.query;
  try {
    const api = await t.inject({ url: '/v1/posts?limit=5', key });
    assert.ok(api.statusCode >= 500, `${api.statusCode} ${api.body}`);
    const page = await t.inject({ url: failing });
    assert.ok(page.statusCode >= 500, `${page.statusCode} ${page.body}`);
  } finally {
    t.container.pool.query = original;
  }
  const failed = t.logs.filter((l) => l.msg === 'request failed');
  assert.deepEqual(
    failed.map((l) => l.route),
    ['/v1/posts', '/connect/:token'],
    'each 5xx leaves one line, with the route pattern',
  );
  assert.ok(failed.every((l) => !('url' in l)));
  // What a person needs to debug it: the error's stack, with the request id of the access line.
  const errors = t.logs.filter((l) => l.level === 50 && l.err !== undefined);
  assert.equal(errors.length, 2, JSON.stringify(t.logs));
  for (const [i, line] of errors.entries()) {
    const err = line.err as { stack?: string } | undefined;
    assert.match(err?.stack ?? '', /Error: boom at[\s\S]*\n\s+at /, 'the stack is logged');
    assert.equal(line.request_id, failed[i]?.request_id);
  }
  assert.ok(t.logs.some((l) => JSON.stringify(l).includes('boom at /connect/[redacted]?code=[redacted]')));
  assertNoSecretLogged();
});

test('redactSecrets and the pretty format', () => {
  const line = JSON.stringify({
    level: 30,
    time: Date.UTC(2026, 0, 2, 3, 4, 5, 6),
    msg: 'request',
    route: '/v1/posts',
    status: 200,
    note: `GET /connect/${'a'.repeat(30)}?code=abc&state=def Bearer ${'b'.repeat(20)}`,
  });
  const redacted = redactSecrets(line);
  assert.ok(!redacted.includes('a'.repeat(30)) && !redacted.includes('b'.repeat(20)));
  assert.match(redacted, /code=\[redacted\]&state=\[redacted\]/);
  assert.equal(
    formatPretty(redacted, false),
    '03:04:05.006 INFO  request route=/v1/posts status=200 note="GET /connect/[redacted]?code=[redacted]&state=[redacted] Bearer [redacted]"\n',
  );
  assert.ok(formatPretty(line, true).includes('\x1b[32mINFO '));
  assert.equal(redactSecrets(`key ${TEST_SECRET}.`, [TEST_SECRET]), 'key [redacted].');
  // Each cookie Herald sets, as it would appear quoted in an error message.
  for (const name of ['herald_session', '__Host-herald_login', 'herald_connect'])
    assert.equal(redactSecrets(`cookie: ${name}=${'c'.repeat(32)}; x=1`), `cookie: ${name}=[redacted]; x=1`);
});

test('a secret key learnt after the logger was made (generated into the data dir) is redacted from then on', () => {
  const lines: string[] = [];
  const secrets: string[] = [];
  const logger = createLogger('info', { write: (line: string) => void lines.push(line) }, { format: 'json', secrets });
  const generated = randomBytes(32).toString('base64url');
  secrets.push(generated);
  logger.info({ detail: `key=${generated}` }, `the key ${generated} in a message`);
  assert.equal(lines.length, 1);
  assert.ok(!lines[0]!.includes(generated), lines[0]);
  assert.match(lines[0]!, /\[redacted\]/);
});
