// The `herald-client` command (clients/typescript/src/cli, docs/ci-cd.md) against a running `herald serve`: run
// from the checkout's build and from the packed tarball installed in a scratch project, as a pipeline runs it.
// A scheduled post, an image from a file, --wait on a failing target (a simulator fault) exiting 1, --dry-run
// creating nothing, a re-run with the same pipeline ids creating nothing new, and the documented exit codes.
// Needs `npm ci --prefix clients/typescript` and npm's cache or registry (as client.test.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildTestApp, TEST_SECRET, type TestApp } from '../helpers/app.ts';
import { png } from '../helpers/media-fixtures.ts';
import { freePort } from '../helpers/ports.ts';
import { spawnHerald, type HeraldProcess } from '../helpers/processes.ts';
import { contentHash, pipelineKey, pipelineRun } from '../../clients/typescript/src/cli/pipeline-key.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CLIENT = path.join(ROOT, 'clients', 'typescript');
const CHECKOUT_BIN = path.join(CLIENT, 'dist', 'cli', 'main.js');

let tmp: string;
let image: string;
let packedBin: string;
let t: TestApp;
let server: HeraldProcess;
let url: string;
let key: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Environment a CI job would not have: none of the runner's own CI variables leak into a run. */
const CI_VARIABLES = /^(GITHUB_|CI_|BUILD_|BUILDKITE|CIRCLE_|BITBUCKET_|SYSTEM_)/;

function cli(args: string[], env: Record<string, string> = {}, bin = packedBin): Promise<Run> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !CI_VARIABLES.test(name)));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: { ...base, HERALD_URL: url, HERALD_API_KEY: key, ...env }, timeout: 180_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${command} ${args.join(' ')} failed:\n${stdout}\n${stderr}`)) : resolve(stdout),
    );
  });
}

const countPosts = async () =>
  (await t.container.pool.query('SELECT count(*)::int AS n FROM posts')).rows[0].n as number;
const countMedia = async () =>
  (await t.container.pool.query('SELECT count(*)::int AS n FROM media')).rows[0].n as number;

before(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'herald-cli-'));
  image = path.join(tmp, 'release.png');
  await writeFile(image, png(64, 48));
  await run(process.execPath, ['scripts/build.ts'], CLIENT);
  const packed = await run('npm', ['pack', '--pack-destination', tmp, '--silent'], CLIENT);
  const tarball = path.join(tmp, packed.trim().split('\n').at(-1)!);
  const project = path.join(tmp, 'pipeline');
  await mkdir(project);
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'pipeline', private: true }));
  // The registry is reached only for what npm's cache lacks (`npm ci --prefix clients/typescript` fills it).
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], project);
  packedBin = path.join(project, 'node_modules', '@herald', 'client', 'dist', 'cli', 'main.js');

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
    HERALD_SANDBOX_CONTROL: 'true',
  });
  await server.url;
});

after(async () => {
  await server?.stop();
  await t?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('herald-client post', () => {
  test('schedules a post in a time zone (run from the checkout build); posts get and list show it', async () => {
    const result = await cli(
      [
        'post',
        'Release 2.0 ships on Monday',
        '--platform',
        'x',
        '--platform',
        'linkedin',
        '--schedule-at',
        '2031-03-03T09:00',
        '--timezone',
        'Europe/Paris',
      ],
      {},
      CHECKOUT_BIN,
    );
    assert.equal(result.code, 0, result.stderr);
    const id = /post (post_\w+): scheduled for 2031-03-03T08:00:00/.exec(result.stdout)?.[1];
    assert.ok(id, result.stdout);
    assert.match(result.stdout, /linkedin\s+scheduled/);
    const got = await cli(['posts', 'get', id, '--json']);
    assert.equal(got.code, 0);
    assert.equal(JSON.parse(got.stdout).status, 'scheduled');
    const listed = await cli(['posts', 'list', '--status', 'scheduled']);
    assert.match(listed.stdout, new RegExp(id));
    const cancelled = await cli(['posts', 'cancel', id]);
    assert.equal(cancelled.code, 0, cancelled.stderr);
    assert.match(cancelled.stdout, /cancelled post .*: cancelled/);
  });

  test('posts an image from a file and, with --wait, prints each target URL once published', async () => {
    const result = await cli(['post', 'Release 2.0 is out', '--platform', 'x', '--media', image, '--wait']);
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /x\s+published\s+https?:\/\/\S+/);
    assert.doesNotMatch(result.stderr, /\[#*\.*\]/, 'no progress bar when stderr is not a terminal');
    const id = /post (post_\w+)/.exec(result.stdout)![1]!;
    const post = await t.inject({ url: `/v1/posts/${id}`, key });
    assert.equal(post.json().data.media.length, 1);
  });

  test('--wait exits 1 when a target fails (a simulator fault), naming the target and its error', async () => {
    const faults = `${url}/sandbox/x/_sandbox/faults`;
    const added = await fetch(faults, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fault: 'duplicate', operation: 'create_post' }),
    });
    assert.equal(added.status, 200, await added.text());
    try {
      const result = await cli(['post', 'This one will be refused', '--platform', 'x', '--wait', '--json']);
      assert.equal(result.code, 1, `${result.stdout}\n${result.stderr}`);
      const post = JSON.parse(result.stdout.trim().split('\n').at(-1)!);
      assert.equal(post.targets[0].status, 'failed');
      assert.match(result.stderr, /x failed/);
    } finally {
      await fetch(faults, { method: 'DELETE' });
    }
  });

  test('--dry-run validates and creates nothing', async () => {
    const before = await countPosts();
    const mediaBefore = await countMedia();
    const valid = await cli(['post', 'Just checking', '--platform', 'x', '--dry-run']);
    assert.equal(valid.code, 0, valid.stderr);
    assert.match(valid.stdout, /valid; nothing was created/);
    const tooLong = await cli(['post', 'x'.repeat(400), '--platform', 'x', '--dry-run']);
    assert.equal(tooLong.code, 2);
    // Instagram needs an image: the dry run counts the --media given, though it uploads nothing.
    const noImage = await cli(['post', 'A picture post', '--platform', 'instagram', '--dry-run']);
    assert.equal(noImage.code, 2, noImage.stdout);
    assert.match(noImage.stdout, /media_required/);
    const withImage = await cli(['post', 'A picture post', '--platform', 'instagram', '--media', image, '--dry-run']);
    assert.equal(withImage.code, 0, withImage.stdout);
    assert.equal(await countMedia(), mediaBefore);
    assert.equal(await countPosts(), before);
  });

  test('a re-run with the same pipeline ids creates nothing new, media included; another post in the run does', async () => {
    const github = { GITHUB_REPOSITORY: 'acme/app', GITHUB_RUN_ID: '4242', GITHUB_RUN_ATTEMPT: '1' };
    const args = ['post', 'Release 2.1', '--platform', 'x', '--media', image];
    const first = await cli(args, github);
    assert.equal(first.code, 0, first.stderr);
    const [posts, media] = [await countPosts(), await countMedia()];
    const rerun = await cli(args, { ...github, GITHUB_RUN_ATTEMPT: '2' });
    assert.equal(rerun.code, 0, rerun.stderr);
    assert.match(rerun.stdout, /already created by an earlier run/);
    assert.equal(/post (post_\w+)/.exec(rerun.stdout)![1], /post (post_\w+)/.exec(first.stdout)![1]);
    assert.deepEqual([await countPosts(), await countMedia()], [posts, media]);
    const other = await cli(['post', 'Release 2.1, second note', '--platform', 'x'], github);
    assert.equal(other.code, 0);
    assert.equal(await countPosts(), posts + 1);
  });
});

describe('exit codes', () => {
  test('2 for invalid input: a missing platform, a bad time, an unknown platform, a missing file', async () => {
    for (const args of [
      ['post', 'no platform'],
      ['post', 'bad time', '--platform', 'x', '--schedule-at', 'tomorrow'],
      ['post', 'unknown', '--platform', 'myspace'],
      ['post', 'no file', '--platform', 'x', '--media', path.join(tmp, 'missing.png')],
      ['posts', 'get', 'post_doesnotexist'],
      ['post', 'a draft goes nowhere', '--platform', 'x', '--draft', '--wait'],
      ['frobnicate'],
    ]) {
      const result = await cli(args);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, /^error: /m);
    }
  });

  test('3 for authentication or permission', async () => {
    const invalid = await cli(['posts', 'list'], { HERALD_API_KEY: 'hk_test_notavalidkeynotavalidkey0000' });
    assert.equal(invalid.code, 3);
    assert.match(invalid.stderr, /PUBLIC_API_KEY_INVALID/);
    const readOnly = await t.key({ scopes: ['posts:read'] });
    const forbidden = await cli(['post', 'nope', '--platform', 'x'], { HERALD_API_KEY: readOnly });
    assert.equal(forbidden.code, 3);
  });

  test('4 when Herald cannot be reached, after retries', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const result = await cli(['posts', 'list'], { HERALD_URL: closed });
    assert.equal(result.code, 4);
    assert.match(result.stderr, /could not be reached/);
  });
});

describe('the default idempotency key', () => {
  const post = { content: 'Release 2.0', platforms: ['x', 'linkedin'], media: [] };

  test('comes from the pipeline run, not the attempt: a re-run job sends the same key', () => {
    const a = pipelineKey({ GITHUB_REPOSITORY: 'acme/app', GITHUB_RUN_ID: '7', GITHUB_RUN_ATTEMPT: '1' }, post);
    const b = pipelineKey({ GITHUB_REPOSITORY: 'acme/app', GITHUB_RUN_ID: '7', GITHUB_RUN_ATTEMPT: '2' }, post);
    assert.ok(a);
    assert.equal(a, b);
    assert.notEqual(a, pipelineKey({ GITHUB_REPOSITORY: 'acme/app', GITHUB_RUN_ID: '8' }, post));
    const gitlab = { CI_PROJECT_ID: '5', CI_PIPELINE_ID: '99', CI_JOB_ID: '1' };
    assert.equal(pipelineKey(gitlab, post), pipelineKey({ ...gitlab, CI_JOB_ID: '2' }, post));
    assert.equal(pipelineRun({}), undefined);
    assert.equal(pipelineKey({}, post), undefined, 'outside CI: a fresh key per call');
  });

  test('two different posts in one run never share a key; platform order does not matter', () => {
    const env = { CI_PROJECT_ID: '5', CI_PIPELINE_ID: '99' };
    assert.notEqual(pipelineKey(env, post), pipelineKey(env, { ...post, content: 'Release 2.0 (fr)' }));
    assert.notEqual(pipelineKey(env, post), pipelineKey(env, { ...post, media: ['a.png:00'] }));
    assert.equal(contentHash(post), contentHash({ ...post, platforms: ['linkedin', 'x'] }));
  });
});
