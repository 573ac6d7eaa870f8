// /metrics: the names an operator alerts on (and the standard Node.js ones, unprefixed), the fleet gauges read
// from the database, who may read them (a bearer token, or loopback clients only), and the metrics listener a
// worker serves them on.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../src/config.ts';
import { startMetricsListener } from '../src/http/metrics.ts';
import { readFleet } from '../src/jobs/fleet-metrics.ts';
import { jobPoolSize } from '../src/jobs/worker.ts';
import { buildTestApp, TEST_SECRET, type TestApp } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/db.ts';
import { pollFor } from './helpers/poll.ts';
import { spawnHerald } from './helpers/processes.ts';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

/** Every metric the issue lists, and those the alert rules use. */
export const OPERATOR_METRICS = [
  'herald_jobs_due',
  'herald_jobs_locked',
  'herald_jobs_failed',
  'herald_publish_due_targets',
  'herald_publish_overdue_targets',
  'herald_publish_oldest_overdue_seconds',
  'herald_workers_alive',
  'herald_worker_heartbeat_age_seconds',
  'herald_publish_attempts_total',
  'herald_connections_reconnect_required',
  'herald_webhook_deliveries_pending',
  'herald_webhook_oldest_pending_seconds',
  'herald_webhook_endpoints_disabled',
  'herald_db_pool_connections',
  'herald_db_pool_idle_connections',
  'herald_db_pool_waiting_requests',
  'herald_build_info',
  'herald_fleet_scrape_errors_total',
];

/** The value of one series in the text format (labels as written, in order), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  if (line === undefined) return undefined;
  const value = line.slice(series.length + 1);
  return value === '+Inf' ? Number.POSITIVE_INFINITY : Number(value);
}

describe('/metrics on the API port', () => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp();
  });
  after(() => t.close());

  test('lists every operator metric, the standard process and Node.js names, and the build', async () => {
    // An account whose token stopped working, before the first scrape (readings are cached for 5 s).
    await t.container.pool.query(`UPDATE connections SET status = 'expired' WHERE id = $1`, [t.connections.x]);
    const res = await t.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
    const text = res.body;
    for (const name of OPERATOR_METRICS) assert.match(text, new RegExp(`^# TYPE ${name} `, 'm'), name);
    assert.doesNotMatch(text, /herald_process_|process_process_/, 'no doubled prefix');
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes'])
      assert.match(text, new RegExp(`^# TYPE ${name} `, 'm'), `standard name ${name}`);
    assert.match(text, /^nodejs_eventloop_lag_seconds /m);
    assert.equal(sample(text, `herald_build_info{version="${VERSION}"}`), 1);
    // Every own metric starts with herald_; the rest are prom-client's standard process_* and nodejs_*.
    const names = [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!);
    assert.deepEqual(
      names.filter((n) => !/^(herald_|process_|nodejs_)/.test(n)),
      [],
    );
    assert.equal(sample(text, 'herald_connections_reconnect_required'), 1);
    assert.equal(sample(text, 'herald_workers_alive'), 0, 'no worker runs in this process');
    assert.equal(sample(text, 'herald_worker_heartbeat_age_seconds'), Number.POSITIVE_INFINITY);
    assert.equal(sample(text, 'herald_jobs_due{queue="publishing"}'), 0);
    assert.equal(sample(text, 'herald_webhook_endpoints_disabled{reason="failing"}'), 0);
    assert.ok((sample(text, 'herald_db_pool_connections{pool="main"}') ?? 0) >= 1, 'the main pool is reported');
  });

  test('fleet readings follow the database: due and overdue targets, workers, jobs', async () => {
    const key = await t.key();
    const created = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: {
        content: 'due an hour ago',
        platforms: ['bluesky'],
        schedule_at: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const postId = (created.json() as { data: { post_id: string } }).data.post_id;
    // Moved into the past behind the API's back, as if no worker had run for an hour.
    await t.container.pool.query(`UPDATE posts SET schedule_at = now() - interval '1 hour' WHERE id = $1`, [postId]);
    const options = { workerDeadAfterMs: 30_000, overdueAfterMs: 120_000 };
    const reading = await readFleet(t.container.pool, options);
    assert.equal(reading.dueTargets, 1);
    assert.equal(reading.overdueTargets, 1);
    assert.ok(
      reading.oldestOverdueSeconds > 3500 && reading.oldestOverdueSeconds < 3700,
      String(reading.oldestOverdueSeconds),
    );
    assert.equal(reading.jobs.main.due, 0, 'its job still waits for the original time');
    await t.container.pool.query(
      `INSERT INTO job_worker_heartbeats (worker_id, queue_schema, last_seen_at) VALUES ('pool-test', 'graphile_worker', now() - interval '3 seconds')`,
    );
    const later = await readFleet(t.container.pool, options);
    assert.equal(later.workers, 1);
    assert.ok(later.heartbeatAgeSeconds! >= 3 && later.heartbeatAgeSeconds! < 60, String(later.heartbeatAgeSeconds));
    await t.container.pool.query(`DELETE FROM job_worker_heartbeats WHERE worker_id = 'pool-test'`);
  });

  test('without a token, only loopback clients may read it', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '203.0.113.9' });
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /HERALD_METRICS_TOKEN/);
    const local = await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '::1' });
    assert.equal(local.statusCode, 200);
    // A reverse proxy on the same host connects from loopback for anyone: what it forwards is refused.
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
      const proxied = await t.app.inject({
        method: 'GET',
        url: '/metrics',
        remoteAddress: '127.0.0.1',
        headers: { [header]: header === 'forwarded' ? 'for=203.0.113.9' : '203.0.113.9' },
      });
      assert.equal(proxied.statusCode, 403, header);
    }
  });
});

describe('/metrics with HERALD_METRICS_TOKEN', () => {
  const token = 'metrics-token-0123456789';
  let t: TestApp;
  before(async () => {
    t = await buildTestApp({ env: { HERALD_METRICS_TOKEN: token } });
  });
  after(() => t.close());

  test('401 without the token or with another, 200 with it, from any address', async () => {
    const none = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(none.statusCode, 401);
    assert.match(String(none.headers['www-authenticate']), /^Bearer/);
    assert.doesNotMatch(none.body, /herald_/);
    const wrong = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${token}x` },
    });
    assert.equal(wrong.statusCode, 401);
    const right = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: '203.0.113.9',
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(right.statusCode, 200);
    assert.match(right.body, /^# TYPE herald_build_info gauge/m);
  });

  test('the metrics listener asks for the same token and serves nothing else', async () => {
    const listener = await startMetricsListener(t.container.metrics, { port: 0, host: '127.0.0.1', token });
    try {
      assert.equal((await fetch(listener.url)).status, 401);
      const ok = await fetch(listener.url, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(ok.status, 200);
      assert.match(await ok.text(), /^# TYPE herald_jobs_due gauge/m);
      assert.equal((await fetch(listener.url.replace('/metrics', '/v1/posts'))).status, 404);
    } finally {
      await listener.close();
    }
  });

  test('a short token is refused at start, naming the setting', () => {
    assert.throws(
      () => loadConfig({ HERALD_SECRET_KEY: TEST_SECRET, HERALD_METRICS_TOKEN: 'short' }),
      /HERALD_METRICS_TOKEN must be at least 16 characters/,
    );
  });
});

test('the job runner pool is as large as the concurrency when the local queue serves the job workers', () => {
  const defaults = loadConfig({ HERALD_SECRET_KEY: TEST_SECRET });
  assert.equal(jobPoolSize(defaults), defaults.workerConcurrency);
  assert.equal(
    jobPoolSize(loadConfig({ HERALD_SECRET_KEY: TEST_SECRET, HERALD_WORKER_LOCAL_QUEUE: '1' })),
    defaults.databasePoolSize,
  );
});

describe('herald serve as real processes', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(() => db.drop());

  test('a default start logs no warning, and a worker serves its own counters on HERALD_METRICS_PORT', async () => {
    const env = {
      DATABASE_URL: db.connectionString,
      HERALD_SECRET_KEY: TEST_SECRET,
      HERALD_LOG_FORMAT: 'json',
      PORT: '0',
    };
    const all = spawnHerald(['serve'], env);
    try {
      await all.url;
      const warnings = all
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; msg?: string })
        .filter((line) => line.level >= 40);
      assert.deepEqual(warnings, [], all.output());
      assert.doesNotMatch(all.output(), /WARNING|maxPoolSize/);
    } finally {
      assert.equal(await all.stop('SIGTERM'), 0, all.output().slice(-3000));
    }

    const worker = spawnHerald(['serve', '--role', 'worker'], {
      ...env,
      HERALD_PUBLIC_URL: 'http://127.0.0.1:9',
      HERALD_METRICS_PORT: '0',
      // Every interface, without a token: it works, with a warning that anyone reaching it can read the metrics.
      HERALD_METRICS_HOST: '0.0.0.0',
    });
    try {
      const url = await pollFor('the worker reports its metrics listener', async () => {
        const match = /"url":"(http:\/\/[^"]+\/metrics)"[^\n]*metrics listener started/.exec(worker.output());
        return match?.[1];
      });
      const text = await (await fetch(url)).text();
      for (const name of ['herald_publish_attempts_total', 'herald_webhook_attempts_total', 'herald_jobs_due'])
        assert.match(text, new RegExp(`^# TYPE ${name} `, 'm'), name);
      assert.ok((sample(text, 'herald_db_pool_connections{pool="jobs"}') ?? 0) >= 1, 'the job runner pool is reported');
      assert.ok((sample(text, 'herald_db_pool_connections{pool="deliveries"}') ?? 0) >= 1);
      assert.doesNotMatch(worker.output(), /maxPoolSize/);
      assert.match(worker.output(), /"host":"0\.0\.0\.0"[^\n]*answers anyone who reaches this address/);
    } finally {
      assert.equal(await worker.stop('SIGTERM'), 0, worker.output().slice(-3000));
    }
  });
});
