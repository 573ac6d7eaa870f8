// docs/api.md "Rate limits": GCRA per key with read and write budgets, headers on every /v1 response, 429 with
// Retry-After, a per-IP budget for calls without a valid key, and budgets shared through Redis (failing open).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { buildContainer } from '../src/container.ts';
import { buildServer } from '../src/http/server.ts';
import { createLogger } from '../src/lib/logger.ts';
import { loadConfig } from '../src/config.ts';
import { buildTestApp, TEST_SECRET, type TestApp } from './helpers/app.ts';

let t: TestApp;

before(async () => {
  t = await buildTestApp({
    env: {
      HERALD_RATE_LIMIT_WRITE_PER_MIN: '3',
      HERALD_RATE_LIMIT_READ_PER_MIN: '5',
      HERALD_RATE_LIMIT_ANON_PER_MIN: '2',
    },
  });
});
after(() => t.close());

describe('headers', () => {
  test('every /v1 response carries X-RateLimit-* and the IETF RateLimit-Policy / RateLimit pair', async () => {
    const key = await t.key();
    const ok = await t.inject({ url: '/v1/posts', key });
    assert.equal(ok.headers['x-ratelimit-limit'], '5');
    assert.equal(ok.headers['x-ratelimit-remaining'], '4');
    const reset = Number(ok.headers['x-ratelimit-reset']);
    assert.ok(
      reset >= Math.floor(Date.now() / 1000) && reset <= Math.ceil(Date.now() / 1000) + 61,
      'Reset is a Unix second within the window',
    );
    assert.equal(ok.headers['ratelimit-policy'], '"read";q=5;w=60');
    assert.match(String(ok.headers.ratelimit), /^"read";r=4;t=\d+$/);
    for (const res of [
      await t.inject({ url: '/v1/posts/post_nope', key }),
      await t.inject({ url: '/v1/unknown', key }),
      await t.inject({ url: '/v1/posts' }),
    ]) {
      assert.ok(res.headers['x-ratelimit-limit'], `${res.statusCode} carries the headers`);
    }
  });
});

describe('budgets', () => {
  test('past the write budget → 429 PUBLIC_API_RATE_LIMITED with Retry-After; reads have their own budget', async () => {
    const key = await t.key();
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 4; i++) {
      last = await t.inject({ method: 'POST', url: '/v1/posts', key, payload: { content: `n${i}`, platforms: ['x'] } });
      statuses.push(last.statusCode);
    }
    assert.deepEqual(statuses, [201, 201, 201, 429]);
    assert.equal(last!.json().error.code, 'PUBLIC_API_RATE_LIMITED');
    assert.ok(Number(last!.headers['retry-after']) >= 1 && Number(last!.headers['retry-after']) <= 20);
    assert.equal(last!.headers['x-ratelimit-remaining'], '0');
    assert.equal((await t.inject({ url: '/v1/posts', key })).statusCode, 200, 'reads are a separate budget');
  });

  test('each key has its own budget', async () => {
    const a = await t.key();
    const b = await t.key();
    for (let i = 0; i < 3; i++)
      await t.inject({ method: 'POST', url: '/v1/posts', key: a, payload: { content: 'a', platforms: ['x'] } });
    assert.equal(
      (await t.inject({ method: 'POST', url: '/v1/posts', key: b, payload: { content: 'b', platforms: ['x'] } }))
        .statusCode,
      201,
    );
  });

  test('an unknown /v1 route with a valid key spends that key’s read budget, not the anonymous one', async () => {
    const key = await t.key();
    const headers = { 'x-forwarded-for': '203.0.113.77' };
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.inject({ url: '/v1/nope', key, headers });
      statuses.push(res.statusCode);
      assert.equal(res.headers['ratelimit-policy'], '"read";q=5;w=60');
      assert.equal(res.json().error.code, 'PUBLIC_API_ROUTE_NOT_FOUND');
    }
    assert.deepEqual(statuses, [404, 404, 404], 'three unknown calls fit the read budget of 5, not the anonymous 2');
    assert.equal((await t.inject({ url: '/v1/posts', key, headers })).headers['x-ratelimit-remaining'], '1');
    // Without a key (or with an invalid one) the anonymous budget still applies.
    const anonymous = await t.inject({
      url: '/v1/nope',
      key: 'hk_live_not_a_key',
      headers: { 'x-forwarded-for': '203.0.113.78' },
    });
    assert.equal(anonymous.headers['ratelimit-policy'], '"anonymous";q=2;w=60');
  });

  test('calls without a valid key spend the client IP budget, then get 429', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await t.inject({ url: '/v1/posts', remoteAddress: '203.0.113.9' })).statusCode);
    assert.deepEqual(statuses, [401, 401, 429]);
    assert.equal(
      (await t.inject({ url: '/v1/posts', remoteAddress: '203.0.113.10' })).statusCode,
      401,
      'another IP is unaffected',
    );
  });
});

async function redisAvailable(url: string): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 500,
    enableOfflineQueue: false,
  });
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

const redisUrl = process.env.HERALD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const haveRedis = await redisAvailable(redisUrl);
if (!haveRedis && process.env.HERALD_TEST_REDIS_URL)
  throw new Error(`HERALD_TEST_REDIS_URL is set but ${redisUrl} does not answer`);

describe(
  'shared through Redis',
  { skip: !haveRedis && `no Redis at ${redisUrl} (set HERALD_TEST_REDIS_URL to require it)` },
  () => {
    test('two API processes with REDIS_URL share one budget', async () => {
      const env = { REDIS_URL: redisUrl, HERALD_RATE_LIMIT_WRITE_PER_MIN: '4', HERALD_RATE_LIMIT_READ_PER_MIN: '4' };
      const second = await buildTestApp({ env });
      const config = loadConfig({
        ...env,
        DATABASE_URL: second.db.connectionString,
        HERALD_SECRET_KEY: TEST_SECRET,
        HERALD_LOG_LEVEL: 'silent',
      });
      const container = buildContainer({
        config,
        logger: createLogger('silent'),
        connectionString: second.db.connectionString,
        keyring: { current: TEST_SECRET, previous: [] },
      });
      const other = await buildServer(container);
      try {
        const key = await second.key();
        const auth = { authorization: `Bearer ${key}` };
        const statuses = [];
        for (const app of [second.app, other, second.app, other, second.app])
          statuses.push((await app.inject({ url: '/v1/posts', headers: auth })).statusCode);
        assert.deepEqual(statuses, [200, 200, 200, 200, 429]);
      } finally {
        await other.close();
        await container.close();
        await second.close();
      }
    });

    test('a Redis outage fails open and is counted in /metrics', async () => {
      const down = await buildTestApp({
        env: { REDIS_URL: 'redis://127.0.0.1:1', HERALD_RATE_LIMIT_READ_PER_MIN: '1' },
      });
      try {
        const key = await down.key();
        const statuses = [];
        for (let i = 0; i < 3; i++) statuses.push((await down.inject({ url: '/v1/posts', key })).statusCode);
        assert.deepEqual(statuses, [200, 200, 200], 'allowed although the budget is 1: the store is down');
        const metrics = (await down.inject({ url: '/metrics' })).body;
        const failures = Number(/herald_rate_limit_store_errors_total (\d+)/.exec(metrics)?.[1]);
        assert.ok(failures >= 3, `counted ${failures} store errors`);
      } finally {
        await down.close();
      }
    });
  },
);
