// Health a load balancer and a monitor can use (docs/api.md "Health", docs/deploy.md): /health/ready says whether
// this process can serve (database, migrations, its own job runners) and never depends on another process;
// /health/publishing reports the fleet (workers alive, overdue targets) and answers 503 when degraded. A worker
// that stops removes its heartbeat, so the fleet counts true workers after a restart. A process that lacks an
// address it needs, or the migrations its build needs, refuses to start with a message naming the fix; a process
// of an older build keeps serving on a database a newer build migrated.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { ConfigError, loadConfig, requireAddresses } from '../src/config.ts';
import { buildServer } from '../src/http/server.ts';
import { startWorker } from '../src/jobs/worker.ts';
import { createLogger } from '../src/lib/logger.ts';
import { startHerald } from '../src/serve.ts';
import { buildTestApp, TEST_SECRET, type TestApp } from './helpers/app.ts';
import { createTestDatabase } from './helpers/db.ts';
import { pollFor } from './helpers/poll.ts';
import { future } from './helpers/posts.ts';
import { runHerald } from './helpers/processes.ts';

let t: TestApp;
let key: string;

before(async () => {
  t = await buildTestApp({ env: { HERALD_WORKER_DEAD_AFTER_MS: '5000', HERALD_OVERDUE_AFTER_MS: '1000' } });
  key = await t.key();
});
after(async () => {
  await t?.close();
});

const publishing = async () => {
  const res = await t.inject({ url: '/health/publishing' });
  return { status: res.statusCode, body: res.json() };
};

describe('/health/ready and /health/publishing', () => {
  test('an API process with no worker and an overdue post is ready; /health/publishing is 503 with the figures', async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: { content: 'due while no worker runs', platforms: ['x'], schedule_at: future(10) },
    });
    assert.equal(created.statusCode, 201, created.body);
    const postId = created.json().data.post_id as string;
    await t.container.pool.query(`UPDATE posts SET schedule_at = now() - interval '90 seconds' WHERE id = $1`, [
      postId,
    ]);

    const ready = await t.inject({ url: '/health/ready' });
    assert.equal(ready.statusCode, 200, ready.body);
    assert.deepEqual(ready.json(), { status: 'ready', checks: { database: 'ok', migrations: 'current' } });

    const fleet = await publishing();
    assert.equal(fleet.status, 503);
    assert.equal(fleet.body.status, 'degraded');
    assert.deepEqual(fleet.body.problems, ['no_worker', 'overdue']);
    assert.equal(fleet.body.workers.alive, 0);
    assert.equal(fleet.body.overdue.targets, 1);
    assert.ok(fleet.body.overdue.oldest_age_ms >= 89_000, `oldest_age_ms ${fleet.body.overdue.oldest_age_ms}`);
    assert.match(fleet.body.overdue.oldest_due_at, /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(fleet.body.thresholds, { worker_dead_after_ms: 5000, overdue_after_ms: 1000 });
    await t.container.pool.query(`UPDATE posts SET deleted_at = now() WHERE id = $1`, [postId]);
  });

  test('a process that runs job runners is not ready while one is stopped; it names the runner', async () => {
    let running = true;
    const app = await buildServer(t.container, {
      loops: () => ({ publishing_runner: running, delivery_runner: true }),
    });
    try {
      const up = await app.inject({ url: '/health/ready' });
      assert.equal(up.statusCode, 200, up.body);
      assert.equal(up.json().checks.publishing_runner, 'running');
      running = false;
      const down = await app.inject({ url: '/health/ready' });
      assert.equal(down.statusCode, 503);
      assert.deepEqual(down.json().checks, {
        database: 'ok',
        migrations: 'current',
        publishing_runner: 'stopped',
        delivery_runner: 'running',
      });
    } finally {
      await app.close();
    }
  });

  test('a worker that stops removes its heartbeat: after a restart the fleet counts one worker, not two', async () => {
    const first = await startWorker(t.container);
    try {
      assert.equal(first.running, true);
      const alive = await pollFor('first heartbeat', async () => {
        const seen = await publishing();
        return seen.body.workers.alive > 0 && seen;
      });
      assert.equal(alive.status, 200, JSON.stringify(alive.body));
      assert.equal(alive.body.workers.alive, 1);
      assert.ok(alive.body.workers.last_heartbeat_age_ms < 5000);
    } finally {
      await first.stop();
    }
    assert.equal(first.running, false);
    // Gone at once, not after HERALD_WORKER_DEAD_AFTER_MS (5 s here).
    const after = await publishing();
    assert.equal(after.body.workers.alive, 0);
    const { rows } = await t.container.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM job_worker_heartbeats WHERE queue_schema = 'graphile_worker'`,
    );
    assert.equal(rows[0]!.n, 0);

    const second = await startWorker(t.container);
    try {
      await pollFor('heartbeat of the restarted worker', async () => (await publishing()).body.workers.alive > 0);
      assert.equal((await publishing()).body.workers.alive, 1);
    } finally {
      await second.stop();
    }
  });
});

describe('addresses and migrations a process needs before it starts', () => {
  test('requireAddresses: a worker without HERALD_PUBLIC_URL is refused, naming it; api and all default', () => {
    const base = { DATABASE_URL: 'postgres://h@db/h', HERALD_SECRET_KEY: TEST_SECRET };
    const unset = loadConfig(base);
    assert.throws(
      () => requireAddresses(unset, 'worker'),
      (e: unknown) => e instanceof ConfigError && /HERALD_PUBLIC_URL is not set/.test(e.message),
    );
    assert.doesNotThrow(() => requireAddresses(unset, 'api'));
    assert.doesNotThrow(() => requireAddresses(unset, 'all'));
    assert.doesNotThrow(() =>
      requireAddresses(loadConfig({ ...base, HERALD_PUBLIC_URL: 'https://herald.example.com' }), 'worker'),
    );
  });

  test('herald serve --role worker without HERALD_PUBLIC_URL exits at once with exit code 2 and the setting named', async () => {
    const res = await runHerald(['serve', '--role', 'worker'], {
      DATABASE_URL: t.db.connectionString,
      HERALD_SECRET_KEY: TEST_SECRET,
      HERALD_PUBLIC_URL: '',
    });
    assert.equal(res.code, 2, res.stderr);
    assert.match(res.stderr, /HERALD_PUBLIC_URL is not set/);
  });

  test('a worker on a database without its migrations refuses: "run `herald migrate`"', async () => {
    const db = await createTestDatabase();
    const client = new pg.Client({ connectionString: db.connectionString });
    try {
      await client.connect();
      await client.query('DELETE FROM herald_migrations WHERE id = (SELECT max(id) FROM herald_migrations)');
      const config = loadConfig({
        DATABASE_URL: db.connectionString,
        HERALD_SECRET_KEY: TEST_SECRET,
        HERALD_PUBLIC_URL: 'http://herald.test',
      });
      await assert.rejects(
        startHerald(config, 'worker', { logger: createLogger('silent'), print: () => {} }),
        /Migrations are pending \(\d{4}_[a-z0-9_]+\).*Run `herald migrate`/s,
      );
    } finally {
      await client.end();
      await db.drop();
    }
  });

  test('an older build keeps serving on a database a newer build migrated (a migration it does not know)', async () => {
    const db = await createTestDatabase();
    const client = new pg.Client({ connectionString: db.connectionString });
    try {
      await client.connect();
      await client.query(`INSERT INTO herald_migrations (id, name) VALUES (9999, 'from_a_newer_build')`);
      const config = loadConfig({
        DATABASE_URL: db.connectionString,
        HERALD_SECRET_KEY: TEST_SECRET,
        HERALD_PUBLIC_URL: 'http://herald.test',
        PORT: '0',
        HOST: '127.0.0.1',
      });
      const running = await startHerald(config, 'api', { logger: createLogger('silent'), print: () => {} });
      try {
        const ready = await fetch(`${running.url}/health/ready`);
        assert.equal(ready.status, 200, await ready.text());
      } finally {
        await running.stop();
      }
    } finally {
      await client.end();
      await db.drop();
    }
  });
});
