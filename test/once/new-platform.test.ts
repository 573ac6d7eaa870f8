// scripts/new-platform.ts on a copy of the repository: the scaffolded platform is registered everywhere, typechecks,
// lints and passes the shared adapter contract against its simulator; refused names and a failure half-way leave
// the tree as it was. Slow (a whole-project typecheck and lint) and database-free, so it lives in test/once/: CI
// runs it in a stage of its own (`npm run test:once`), not in both database passes of `npm test`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const SCRIPT = 'scripts/new-platform.ts';
// Children must not take themselves for this test runner's subprocesses.
const { NODE_TEST_CONTEXT: _context, ...childEnv } = process.env;

/** Every file the scaffold edits (and the regenerated tables), to prove a refusal changed none of them. */
const EDITED = [
  'src/platforms/limits.ts',
  'src/platforms/registry.ts',
  'src/platforms/catalogue.ts',
  'src/sandbox/server.ts',
  'src/config/platforms.ts',
  'src/config/table.ts',
  'src/container.ts',
  'src/features/connections/platform-access.ts',
  'src/features/posts/posts.platform-options.ts',
  'src/mcp/tools/catalogue.tools.ts',
  'test/openapi.test.ts',
  'README.md',
  'docs/api.md',
];

const CREATED = [
  'src/platforms/acme/index.ts',
  'src/platforms/acme/client.ts',
  'src/platforms/acme/errors.ts',
  'src/platforms/acme/limits.ts',
  'src/platforms/acme/acme.test.ts',
  'src/sandbox/acme/index.ts',
  'src/sandbox/acme/state.ts',
  'src/sandbox/acme/auth.ts',
  'src/sandbox/acme/posts.ts',
  'src/sandbox/acme/acme-simulator.test.ts',
  'docs/platforms/acme.md',
];

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

describe('scripts/new-platform.ts', () => {
  let tmp: string;
  const at = (file: string) => path.join(tmp, file);
  const read = (file: string) => readFile(at(file), 'utf8');
  const snapshot = async () => Object.fromEntries(await Promise.all(EDITED.map(async (f) => [f, await read(f)])));
  /** Runs the script in the copy; the exit code and what it printed. */
  const scaffold = (...args: string[]) =>
    run(process.execPath, [SCRIPT, ...args], { cwd: tmp, env: childEnv }).then(
      (r) => ({ code: 0, out: r.stdout + r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
    );
  const noneCreated = async () => {
    for (const f of [...CREATED, 'src/platforms/acme', 'src/sandbox/acme'])
      assert.equal(await exists(at(f)), false, `${f} was left behind`);
  };

  before(async () => {
    const started = Date.now();
    tmp = await mkdtemp(path.join(os.tmpdir(), 'herald-new-platform-test-'));
    const lsFiles = (...args: string[]) =>
      execFileSync('git', ['ls-files', '-z', ...args], { cwd: ROOT, encoding: 'utf8' })
        .split('\0')
        .filter(Boolean);
    // Files not committed yet (the script's modules, a new framework file the templates import) are part of the tree.
    const untracked = lsFiles('--others', '--exclude-standard');
    const files = [...new Set([...lsFiles(), SCRIPT, ...untracked])];
    await Promise.all(
      files.map(async (f) => {
        if (await exists(path.join(ROOT, f))) await cp(path.join(ROOT, f), at(f));
      }),
    );
    await symlink(path.join(ROOT, 'node_modules'), at('node_modules'), 'dir');
    console.log(`# copied ${files.length} files in ${Date.now() - started} ms`);
  });
  after(() => rm(tmp, { recursive: true, force: true }));

  test('refuses invalid names and writes nothing', async () => {
    const before = await snapshot();
    for (const name of ['Acme', 'tik-tok', '9gag', 'new', '']) {
      const r = await scaffold(name);
      assert.notEqual(r.code, 0, name);
      if (name) assert.match(r.out, /not a valid platform name|reserved word/, name);
    }
    assert.match((await scaffold('mastodon')).out, /already a platform/);
    assert.match((await scaffold('framework')).out, /src\/sandbox\/framework already exists/);
    assert.match((await scaffold('acme', '--display', 'Acme <b>')).out, /--display must be a plain name/);
    assert.deepEqual(await snapshot(), before);
    await noneCreated();
  });

  test('a missing anchor is named, before anything is written', async () => {
    const original = await read('src/sandbox/server.ts');
    await writeFile(at('src/sandbox/server.ts'), original.replace('export const SIMULATORS', 'export const SIMS'));
    try {
      const before = await snapshot();
      const r = await scaffold('acme');
      assert.equal(r.code, 1);
      assert.match(r.out, /src\/sandbox\/server\.ts: cannot find SIMULATORS/);
      assert.deepEqual(await snapshot(), before);
      await noneCreated();
    } finally {
      await writeFile(at('src/sandbox/server.ts'), original);
    }
  });

  test('a failure after writing restores the tree', async () => {
    // Without its markers docs/api.md cannot be regenerated: the last step fails, after every file was written.
    const doc = await read('docs/api.md');
    await writeFile(at('docs/api.md'), doc.replace('<!-- BEGIN GENERATED', '<!-- BEGUN GENERATED'));
    try {
      const before = await snapshot();
      const r = await scaffold('acme');
      assert.equal(r.code, 1);
      assert.match(r.out, /the tree was restored/);
      assert.deepEqual(await snapshot(), before);
      await noneCreated();
    } finally {
      await writeFile(at('docs/api.md'), doc);
    }
  });

  test('scaffolds acme: files, registries, typecheck, lint and the adapter contract', async () => {
    const r = await scaffold('acme', '--display', 'Acme Social');
    assert.equal(r.code, 0, r.out);
    for (const f of CREATED) assert.ok(await exists(at(f)), `${f} missing`);

    assert.match(
      await read('src/platforms/limits.ts'),
      /PLATFORM_NAMES = \[[^\]]*'googlebusiness',\s*'acme',?\s*\] as const/,
    );
    assert.match(await read('src/platforms/registry.ts'), /acme: createAcmeAdapter,/);
    assert.match(await read('src/platforms/catalogue.ts'), /import \{ limits as acme \} from '\.\/acme\/limits\.ts';/);
    assert.match(await read('src/sandbox/server.ts'), /acme: acmeSimulator,/);
    assert.match(await read('src/config/platforms.ts'), /acme: appSettings\('acme', 'Acme Social'\),/);
    assert.match(await read('src/config/platforms.ts'), /OAUTH_APP_PLATFORMS = \[[^\]]*'acme',?\s*\] as const/);
    assert.match(await read('src/container.ts'), /acme: ACME_API_URL,/);
    assert.match(await read('src/features/connections/platform-access.ts'), /acme: 'https:\/\/www\.acme\.example'/);
    assert.match(await read('src/features/posts/posts.platform-options.ts'), /acme: options\(/);
    assert.match(
      await read('README.md'),
      /\| `HERALD_ACME_CLIENT_ID` \| \(unset\) \| Client id of your Acme Social app/,
    );
    assert.match(await read('docs/api.md'), /`googlebusiness`, `acme`/);
    const doc = await read('docs/platforms/acme.md');
    for (const heading of [
      'Auth',
      'Calls',
      'Limits',
      'Rate limits',
      'Errors',
      'Idempotency',
      'Metrics and inbox',
      'Unverified',
    ])
      assert.match(doc, new RegExp(`^## ${heading}$`, 'm'));
    const markers = (await Promise.all(CREATED.map(read))).join('\n').match(/FILL IN:/g) ?? [];
    assert.ok(markers.length >= 10, `only ${markers.length} FILL IN markers`);

    // A second run is refused: acme exists now.
    assert.match((await scaffold('acme')).out, /already a platform/);

    const started = Date.now();
    const [tsc, lint, tests] = await Promise.all([
      run('npx', ['tsc', '--noEmit', '-p', tmp], { cwd: tmp, env: childEnv }).catch((e: Error) => e),
      run('npx', ['eslint', 'src/platforms/acme', 'src/sandbox/acme', ...EDITED.filter((f) => f.endsWith('.ts'))], {
        cwd: tmp,
        env: childEnv,
      }).catch((e: Error) => e),
      run(
        process.execPath,
        ['--test', '--test-reporter=tap', 'src/platforms/acme/acme.test.ts', 'src/sandbox/acme/acme-simulator.test.ts'],
        { cwd: tmp, env: childEnv },
      ).catch((e: Error) => e),
    ]);
    const failed = (r: unknown) =>
      r instanceof Error ? `${r.message}\n${(r as { stdout?: string }).stdout ?? ''}` : undefined;
    assert.equal(failed(tsc), undefined, 'tsc --noEmit failed');
    assert.equal(failed(lint), undefined, 'eslint failed');
    assert.equal(failed(tests), undefined, 'the generated tests failed');
    const tap = (tests as { stdout: string }).stdout;
    assert.match(tap, /^# fail 0$/m);
    assert.match(tap, /^\s*ok \d+ - a text post is created once, with an id and a URL$/m);
    assert.match(tap, /^# pass (\d+)$/m);
    console.log(`# typecheck, lint and the generated tests took ${Date.now() - started} ms`);
  });
});
