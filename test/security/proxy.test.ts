// Behind a reverse proxy: the anonymous budget is keyed by the client's address, which only a trusted proxy may
// tell through X-Forwarded-For (HERALD_TRUST_PROXY). Off by default, the header is ignored; set to the proxy's
// address, the header names the client for requests from that proxy and from nowhere else.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { loadConfig, ConfigError } from '../../src/config.ts';
import { buildTestApp, type TestApp } from '../helpers/app.ts';

const BUDGET = 2;
// Fresh addresses per run: with REDIS_URL set, budgets outlive the process for a minute.
const octet = () => randomInt(1, 255);
const PROXY = `192.0.2.${octet()}`;
let client = octet();
/** A forwarded chain whose client (the rightmost untrusted address) differs from every earlier one. */
const forwarded = () => `203.0.113.${octet()}, 198.51.100.${(client++ % 254) + 1}`;
const stranger = () => `10.${octet()}.${octet()}.${octet()}`;

let plain: TestApp;
let proxied: TestApp;

before(async () => {
  const env = { HERALD_RATE_LIMIT_ANON_PER_MIN: String(BUDGET) };
  plain = await buildTestApp({ env });
  proxied = await buildTestApp({ env: { ...env, HERALD_TRUST_PROXY: PROXY } });
});
after(async () => {
  await plain.close();
  await proxied.close();
});

/** An anonymous call from `peer` (the socket's address) claiming to forward for `xff`. */
const call = (t: TestApp, peer: string, xff?: string) =>
  t.app.inject({
    method: 'GET',
    url: '/v1/platforms',
    remoteAddress: peer,
    headers: xff ? { 'x-forwarded-for': xff } : {},
  });

test('trust proxy off (the default): X-Forwarded-For is ignored for the anonymous budget', async () => {
  const peer = stranger();
  for (let i = 0; i < BUDGET; i++) assert.equal((await call(plain, peer, forwarded())).statusCode, 200);
  const res = await call(plain, peer, forwarded());
  assert.equal(res.statusCode, 429, 'a new forwarded address does not buy a new budget');
  assert.equal(res.json().error.code, 'PUBLIC_API_RATE_LIMITED');
});

test('trust proxy set to the proxy: two clients behind it get separate anonymous budgets', async () => {
  const [a, b] = [forwarded(), forwarded()];
  for (let i = 0; i < BUDGET; i++) assert.equal((await call(proxied, PROXY, a)).statusCode, 200);
  assert.equal((await call(proxied, PROXY, a)).statusCode, 429, 'client a spent its budget');
  assert.equal((await call(proxied, PROXY, b)).statusCode, 200, 'client b has its own');
});

test('trust proxy set: a forged X-Forwarded-For from an untrusted address is ignored', async () => {
  const peer = stranger();
  for (let i = 0; i < BUDGET; i++) assert.equal((await call(proxied, peer, forwarded())).statusCode, 200);
  assert.equal((await call(proxied, peer, forwarded())).statusCode, 429);
});

test('HERALD_TRUST_PROXY takes addresses and CIDRs; anything else (a hop count too) is refused at start-up', () => {
  const base = { HERALD_SECRET_KEY: 'x'.repeat(32) };
  assert.equal(loadConfig(base).http.trustProxy, false);
  assert.equal(loadConfig({ ...base, HERALD_TRUST_PROXY: 'off' }).http.trustProxy, false);
  assert.deepEqual(loadConfig({ ...base, HERALD_TRUST_PROXY: '10.0.0.0/8, ::1,192.0.2.7' }).http.trustProxy, [
    '10.0.0.0/8',
    '::1',
    '192.0.2.7',
  ]);
  for (const bad of ['on', 'true', '1', '2', '10.0.0.0/33', 'proxy.example', '-1', '1.2.3'])
    assert.throws(() => loadConfig({ ...base, HERALD_TRUST_PROXY: bad }), ConfigError, bad);
});
