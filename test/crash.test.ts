// The crash test: several hundred posts published by worker processes (the real `herald serve --role worker`)
// that are SIGKILLed at random moments, while the simulators inject 5xx, hangs, rate limits and responses lost
// after the post was made. Afterwards every target is published exactly once on its simulator or failed with
// a reason, none is stuck, and every post a simulator holds belongs to a target that ends `published` with
// that post's id (marking unknown outcomes failed would not pass). Kills at named moments (a Meta container
// made but not yet published, around a token refresh) are in test/crash-points.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { PLATFORM_LIMITS } from '../src/platforms/catalogue.ts';
import type { PlatformName } from '../src/platforms/limits.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, TEST_SECRET, type TestApp } from './helpers/app.ts';
import { auditExactlyOnce, unsettledTargets } from './helpers/exactly-once.ts';
import { pollFor } from './helpers/poll.ts';

const POSTS = 300;
const KILLS = 12;
// Instagram is left out: every Instagram post needs media, which this test does not upload
// (test/publishing-meta.test.ts covers it).
const PLATFORMS: PlatformName[] = ['x', 'bluesky', 'mastodon', 'linkedin', 'facebook', 'threads', 'googlebusiness'];
/** Platforms that take threads get a second part on every fourth post; the others (LinkedIn, Facebook) one part. */
const threaded = (p: PlatformName) => PLATFORM_LIMITS[p].maxThreadParts > 0;
const BIN = fileURLToPath(new URL('../bin/herald.js', import.meta.url));

let sandbox: RunningSandbox;
let t: TestApp;
const children = new Set<ChildProcess>();

function env(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: t.db.connectionString,
    HERALD_SECRET_KEY: TEST_SECRET,
    // A worker refuses to start without it (it has no HOST:PORT of its own); the sandbox URL below overrides it.
    HERALD_PUBLIC_URL: 'http://herald.test',
    HERALD_SANDBOX_URL: sandbox.url,
    HERALD_LOG_LEVEL: 'error',
    HERALD_WORKER_POLL_INTERVAL_MS: '200',
    HERALD_HEARTBEAT_INTERVAL_MS: '250',
    HERALD_WORKER_DEAD_AFTER_MS: '1500',
    HERALD_PLATFORM_TIMEOUT_MS: '3000',
    HERALD_OVERDUE_AFTER_MS: '5000',
    HERALD_WORKER_CONCURRENCY: '8',
    HERALD_PUBLISH_MAX_ATTEMPTS: '12',
  };
}

function startWorkerProcess(): ChildProcess {
  const child = spawn(process.execPath, [BIN, 'serve', '--role', 'worker'], {
    env: env(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  child.on('exit', (code, signal) => {
    children.delete(child);
    if (signal !== 'SIGKILL' && signal !== 'SIGTERM' && code !== 0) console.error(`# worker exited ${code}: ${stderr}`);
  });
  children.add(child);
  return child;
}

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret(), rateLimitFactor: 1000 });
  t = await buildTestApp({ sandboxUrl: sandbox.url });
});
after(async () => {
  for (const child of children) child.kill('SIGKILL');
  await t.close();
  await sandbox.close();
});

test(
  `${POSTS} posts, ${KILLS} worker kills, injected faults: nothing duplicated, nothing lost, nothing stuck`,
  { timeout: 600_000 },
  async () => {
    const started = Date.now();
    for (const platform of PLATFORMS) {
      const faults = sandbox.simulator(platform).faults;
      faults.add({ fault: 'lost_response', operation: 'create_post', probability: 0.06 });
      faults.add({ fault: 'server_error', operation: 'create_post', probability: 0.05 });
      faults.add({ fault: 'hang', operation: 'create_post', probability: 0.03 });
      faults.add({ fault: 'rate_limited', operation: 'create_post', probability: 0.02, retryAfterSeconds: 1 });
    }
    const key = await t.key();
    startWorkerProcess();
    startWorkerProcess();

    const parts = new Map<string, string[]>(); // post id → texts of its parts
    for (let i = 0; i < POSTS; i++) {
      const platforms = PLATFORMS.filter((_, j) => (i + j) % 3 !== 0 || i % 7 === 0);
      const thread = i % 4 === 0 ? [`crash ${i} part 2`] : undefined;
      const options = thread ? Object.fromEntries(platforms.filter(threaded).map((p) => [p, { thread }])) : undefined;
      const body = {
        content: `crash ${i} part 1`,
        platforms,
        ...(options ? { platform_options: options } : {}),
        ...(i % 3 === 0
          ? { schedule_at: new Date(Date.now() + 2000 + (i % 10) * 300).toISOString() }
          : { publish_now: true }),
      };
      const res = await t.inject({ method: 'POST', url: '/v1/posts', key, payload: body });
      assert.equal(res.statusCode, 201, res.body);
      parts.set(res.json().data.post.id, [body.content, ...(thread ?? [])]);
    }

    // Kill a worker at random moments while the posts go out; always start a replacement.
    let kills = 0;
    while (kills < KILLS) {
      await new Promise((r) => setTimeout(r, 200 + Math.random() * 900));
      const victims = [...children];
      const victim = victims[Math.floor(Math.random() * victims.length)];
      if (victim) {
        victim.kill('SIGKILL');
        children.delete(victim);
        kills++;
      }
      if (children.size < 2) startWorkerProcess();
    }

    const pool = t.container.pool;
    await pollFor(
      'every target settled after the last kill',
      async () => ((await unsettledTargets(pool)) === 0 ? true : undefined),
      240_000,
      500,
    );

    const {
      targets,
      parts: partCount,
      duplicates,
      lost,
      failed,
      problems,
    } = await auditExactlyOnce(pool, sandbox, parts, PLATFORMS, threaded);
    const { rows: attempts } = await pool.query<{ outcome: string; n: number }>(
      'SELECT outcome, count(*)::int AS n FROM target_attempts GROUP BY outcome ORDER BY outcome',
    );
    const fired = Object.fromEntries(PLATFORMS.map((p) => [p, sandbox.simulator(p).faults.fired()]));
    console.log(
      `# crash test: ${POSTS} posts, ${targets} targets, ${partCount} parts, ${kills} kills, ${Math.round((Date.now() - started) / 1000)} s`,
    );
    console.log(`# faults fired: ${JSON.stringify(fired)}`);
    console.log(`# attempts by outcome: ${attempts.map((a) => `${a.outcome ?? 'open'} ${a.n}`).join(', ')}`);
    console.log(`# duplicates ${duplicates}, lost ${lost}, failed ${failed} (with reasons), stuck 0`);
    assert.deepEqual(problems.slice(0, 20), []);
    assert.equal(duplicates, 0);
    assert.equal(lost, 0);
  },
);
