// The deploy guide, run as written. docs/deploy.md marks its command blocks (`<!-- guide:<name> -->` before a
// fenced `sh` block); this file reads them from the guide and runs them with `sh`, with a `herald` on the PATH that
// is this checkout, changing only ports and addresses: the environment's values (by variable name), and the API
// port. It runs the first deploy (migrate, init, two API processes, one worker), publishes through one API process
// and reads the post back through the other and from the simulators they serve, then, with posts due, runs the
// upgrade (migrate) and rolls one API process and the worker (SIGTERM, start again). Every post must be published
// once, none lost. When the guide changes, this fails until the two agree.
//
// There is no load balancer here: the first API process stands in for it (HERALD_PUBLIC_URL points at it, as in
// the guide's "run by hand" block), and the second one is the API process that is rolled.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { createConfiguredSimulators } from '../../src/container.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import type { PlatformName } from '../../src/platforms/limits.ts';
import type { RunningSandbox } from '../../src/sandbox/server.ts';
import { auditExactlyOnce, unsettledTargets } from '../helpers/exactly-once.ts';
import { pollFor } from '../helpers/poll.ts';
import { freePort } from '../helpers/ports.ts';
import { call, recordFigures } from './harness.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const GUIDE = path.join(ROOT, 'docs', 'deploy.md');
const PLATFORMS: PlatformName[] = ['x', 'bluesky', 'mastodon'];
const DUE_POSTS = 24;

/** The guide's marked blocks, by name. */
export function guideBlocks(markdown: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const m of markdown.matchAll(/<!-- guide:([a-z-]+) -->\n```sh\n([\s\S]*?)\n```/g)) {
    assert.ok(!blocks.has(m[1]!), `the guide marks two blocks "${m[1]}"`);
    blocks.set(m[1]!, m[2]!);
  }
  return blocks;
}

function block(name: string): string {
  const found = guideBlocks(readFileSync(GUIDE, 'utf8')).get(name);
  assert.ok(found, `docs/deploy.md has no block marked <!-- guide:${name} -->`);
  return found;
}

/**
 * The environment block with this run's values: each `export NAME=…` line gets the value of NAME from `values`. A
 * variable the guide exports that this test has no value for fails the test: the guide and the test must agree.
 */
function environmentScript(values: Record<string, string>): string {
  const lines = block('environment')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
  const seen = new Set<string>();
  const script = lines.map((line) => {
    const m = /^export ([A-Z][A-Z0-9_]*)=\S+$/.exec(line.trim());
    assert.ok(m, `the environment block has a line this test cannot substitute: ${line}`);
    const value = values[m[1]!];
    assert.ok(value !== undefined, `the guide's environment sets ${m[1]}, which this test has no value for`);
    seen.add(m[1]!);
    return `export ${m[1]}='${value}'`;
  });
  for (const name of Object.keys(values)) assert.ok(seen.has(name), `the guide's environment no longer sets ${name}`);
  return script.join('\n');
}

interface Shell {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code once the shell and everything it started have exited (their pipes closed). */
  done: Promise<number | null>;
  /**
   * Signals the commands the shell runs (herald), so that the shell exits with their exit code; SIGKILL goes to
   * the whole process group. Waits for the end.
   */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

let work: string;
let admin: pg.Client;
let dbName: string;
let databaseUrl: string;
let pool: Pool | undefined;
let env: Record<string, string>;
let values: Record<string, string>;
const shells: Shell[] = [];

function runShell(script: string, label: string): Shell {
  const child = spawn('sh', ['-ec', `${environmentScript(values)}\n${script}`], {
    cwd: work,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const done = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const shell: Shell = {
    child,
    output: () => output,
    done,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return done;
      let children: number[] = [];
      try {
        children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8')
          .trim()
          .split(/\s+/)
          .filter(Boolean)
          .map(Number);
      } catch {
        // the shell has already exited
      }
      try {
        if (signal === 'SIGKILL' || children.length === 0) process.kill(-child.pid!, signal);
        else for (const pid of children) process.kill(pid, signal);
      } catch {
        // already gone
      }
      return done;
    },
  };
  void done.then((code) => {
    if (code !== 0 && code !== null && !stopping.has(shell)) console.log(`# ${label} exited ${code}:\n${output}`);
  });
  shells.push(shell);
  return shell;
}
const stopping = new Set<Shell>();

async function stopShell(shell: Shell): Promise<number | null> {
  stopping.add(shell);
  return shell.stop('SIGTERM');
}

/** The guide's API block on `port`: the only change is the port the guide gives (8080). */
function startApi(port: number): Shell {
  const api = block('api');
  assert.match(api, /PORT=8080\b/, 'the API block sets PORT=8080');
  return runShell(api.replace(/PORT=8080\b/g, `PORT=${port}`), `API process on ${port}`);
}

async function ready(url: string): Promise<void> {
  await pollFor(
    `${url}/health/ready`,
    async () => {
      try {
        return (await fetch(`${url}/health/ready`)).status === 200;
      } catch {
        return false;
      }
    },
    90_000,
    100,
  );
}

async function workersAlive(url: string): Promise<number> {
  const res = await call(`${url}/health/publishing`);
  return (res.json as unknown as { workers: { alive: number } }).workers.alive;
}

before(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'herald-guide-'));
  // `herald` as the guide writes it: this checkout's bin/herald.js.
  const bin = path.join(work, 'bin');
  mkdirSync(bin);
  writeFileSync(
    path.join(bin, 'herald'),
    `#!/bin/sh\nexec "${process.execPath}" "${path.join(ROOT, 'bin', 'herald.js')}" "$@"\n`,
  );
  chmodSync(path.join(bin, 'herald'), 0o755);
  // An empty database of its own on the suite's cluster: the guide starts from nothing.
  const adminUrl = process.env.DATABASE_URL;
  assert.ok(adminUrl, 'DATABASE_URL (the suite cluster) is set');
  admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  dbName = `herald_guide_${process.pid}`;
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  databaseUrl = url.toString();
  // The environment the processes inherit: this machine's, without any Herald setting (the guide sets them).
  env = Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] =>
        e[1] !== undefined && !/^(HERALD_|DATABASE_URL$|REDIS_URL$|PORT$|HOST$|NODE_TEST)/.test(e[0]),
    ),
  );
  env.PATH = `${bin}:${process.env.PATH ?? ''}`;
});

after(async () => {
  await Promise.all(shells.map((s) => (stopping.add(s), s.stop('SIGKILL'))));
  await pool?.end();
  if (admin) {
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
    await admin.end();
  }
  rmSync(work, { recursive: true, force: true });
});

test(
  'docs/deploy.md as written: first deploy, a post across two API processes, a roll while posts are due',
  { timeout: 600_000 },
  async () => {
    const [portA, portB] = [await freePort(), await freePort()];
    const [a, b] = [`http://127.0.0.1:${portA}`, `http://127.0.0.1:${portB}`];
    const secret = randomBytes(32).toString('hex');
    values = {
      DATABASE_URL: databaseUrl,
      HERALD_SECRET_KEY: secret,
      REDIS_URL: process.env.HERALD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/11',
      HERALD_PUBLIC_URL: a,
    };
    let requests = 0;

    // First deploy: migrate and init, once.
    const first = runShell(block('first-deploy'), 'first deploy');
    assert.equal(await first.done, 0, first.output());
    const key = /API key\s+(hk_\w+)/.exec(first.output())?.[1];
    assert.ok(key, `herald init printed a key:\n${first.output()}`);

    // Two API processes and one worker, each with the guide's command.
    let apiB = startApi(portB);
    startApi(portA);
    let worker = runShell(block('worker'), 'worker');
    await Promise.all([ready(a), ready(b)]);
    await pollFor('the worker is alive on /health/publishing', async () => (await workersAlive(a)) === 1, 90_000, 200);

    // Through A, back through B, and from the simulators B serves.
    const hello = `Guide check ${Date.now()}`;
    const made = await call(`${a}/v1/posts`, {
      method: 'POST',
      key,
      idem: 'guide-hello',
      body: { content: hello, platforms: PLATFORMS, publish_now: true },
    });
    requests++;
    assert.equal(made.status, 201, made.text);
    const helloId = made.json!.data!.post_id!;
    type Target = { platform: string; status: string; url: string | null };
    const published = await pollFor(
      'the post, read through the second API process, is published',
      async () => {
        requests++;
        const res = await call(`${b}/v1/posts/${helloId}`, { key });
        const post = res.json?.data as { status: string; targets: Target[] } | undefined;
        return post && ['published', 'partially_published', 'failed'].includes(post.status) ? post : undefined;
      },
      120_000,
      200,
    );
    assert.equal(published.status, 'published', JSON.stringify(published.targets));
    const xUrl = published.targets.find((t) => t.platform === 'x')?.url ?? '';
    assert.ok(xUrl.startsWith(`${a}/sandbox/x/`), `the X post's URL is under HERALD_PUBLIC_URL: ${xUrl}`);
    const page = await fetch(xUrl.replace(a, b));
    requests++;
    assert.equal(page.status, 200);
    assert.ok((await page.text()).includes(hello), 'the simulator, read through the other API process, holds the post');

    // Posts due over the next seconds, made through both API processes; then the upgrade and the roll.
    const texts = new Map<string, string[]>([[helloId, [hello]]]);
    const start = Date.now() + 4000;
    for (let i = 0; i < DUE_POSTS; i++) {
      const content = `Due during the roll ${i} ${Date.now()}`;
      const res = await call(`${i % 2 === 0 ? a : b}/v1/posts`, {
        method: 'POST',
        key,
        idem: `guide-due-${i}`,
        body: { content, platforms: PLATFORMS, schedule_at: new Date(start + i * 500).toISOString() },
      });
      requests++;
      assert.equal(res.status, 201, res.text);
      texts.set(res.json!.data!.post_id!, [content]);
    }
    const upgrade = runShell(block('upgrade'), 'upgrade');
    assert.equal(await upgrade.done, 0, upgrade.output());
    // Roll the second API process: stop, start the same command, wait until ready.
    assert.equal(await stopShell(apiB), 0, apiB.output().slice(-3000));
    apiB = startApi(portB);
    await ready(b);
    // Then the worker, while the posts are due.
    assert.ok(Date.now() < start + DUE_POSTS * 500, 'the worker is rolled while posts are still coming due');
    assert.equal(await stopShell(worker), 0, worker.output().slice(-3000));
    worker = runShell(block('worker'), 'worker (rolled)');

    const db = (pool = createPool(databaseUrl, 4, 'herald-guide-test'));
    await pollFor(
      'every post settles',
      async () => (await unsettledTargets(db, [...texts.keys()])) === 0,
      240_000,
      500,
    );
    const config = loadConfig({ DATABASE_URL: databaseUrl, HERALD_SECRET_KEY: secret, HERALD_PUBLIC_URL: a });
    const simulators = await createConfiguredSimulators(config, { current: secret, previous: [] }, db).load();
    const sandbox = { simulator: (p: PlatformName) => simulators.get(p)! } as unknown as RunningSandbox;
    const audit = await auditExactlyOnce(db, sandbox, texts, PLATFORMS);
    // A graceful stop removed the old worker's heartbeat: the fleet counts the one that runs.
    const alive = await workersAlive(a);
    for (const [name, shell] of [
      ['the rolled API process', apiB],
      ['the rolled worker', worker],
    ] as const)
      assert.equal(shell.child.exitCode, null, `${name} is still running:\n${shell.output().slice(-3000)}`);
    recordFigures('deploy guide as written, rolled under due posts', {
      requests,
      faults: 2,
      lost: audit.lost,
      duplicates: audit.duplicates,
      unexpected5xx: 0,
      notes: `1 API process and the worker rolled; ${audit.published} targets published, ${audit.failed} failed; ${alive} worker alive after`,
    });
    assert.deepEqual(audit.problems, []);
    assert.equal(audit.failed, 0);
    assert.equal(audit.published, texts.size * PLATFORMS.length);
    assert.equal(alive, 1);
  },
);
