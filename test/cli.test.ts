// The `herald` command: admin commands against a database, their --json output, bad arguments (one line, a
// usage hint, non-zero exit), and the embedded database attached to or started for the duration of a command.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { main } from '../src/cli.ts';
import { ALL_SCOPES } from '../src/features/keys/scopes.ts';
import { buildTestApp, TEST_SECRET, type TestApp } from './helpers/app.ts';
import { runHerald, spawnHerald } from './helpers/processes.ts';

let t: TestApp;
let env: Record<string, string>;

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (s) => (out += `${s}\n`), err: (s) => (err += `${s}\n`), env });
  return { code, out, err };
}

before(async () => {
  t = await buildTestApp();
  env = { DATABASE_URL: t.db.connectionString, HERALD_SECRET_KEY: TEST_SECRET };
});
after(() => t.close());

describe('admin commands', () => {
  test('init --json is idempotent and prints the owner, the Sandbox workspace and its brand', async () => {
    // The test app set up the owner and the Sandbox (with its connections) but no password: init adds only that.
    const first = await cli('init', '--json');
    assert.equal(first.code, 0, first.err);
    const { password, ...rest } = JSON.parse(first.out) as { password: string | null };
    assert.match(String(password), /.{12,}/);
    const same = {
      user_id: t.owner.userId,
      email: 'owner@test.local',
      workspace_id: t.owner.workspaceId,
      brand_id: t.owner.brandId,
      created: false,
      connections: [],
      api_key: null,
    };
    assert.deepEqual(rest, same);
    assert.deepEqual(JSON.parse((await cli('init', '--json')).out), { ...same, password: null });
  });

  test('workspaces create (live by default) and list', async () => {
    const made = await cli('workspaces', 'create', '--name', 'Acme', '--json');
    assert.equal(made.code, 0, made.err);
    const ws = JSON.parse(made.out);
    assert.equal(ws.mode, 'live');
    assert.equal(ws.object, 'workspace');
    assert.match(ws.default_brand_id, /^brand_/);
    const test = JSON.parse((await cli('workspaces', 'create', '--name', 'QA', '--mode', 'test', '--json')).out);
    assert.equal(test.mode, 'test');
    const list = JSON.parse((await cli('workspaces', 'list', '--json')).out) as Array<{ id: string }>;
    // One shape per resource: what create prints is what list prints.
    assert.deepEqual(
      list.find((w) => w.id === ws.id),
      ws,
    );
    assert.ok(list.some((w) => w.id === test.id));
  });

  test('brands create and list', async () => {
    const brand = JSON.parse(
      (await cli('brands', 'create', '--workspace', t.owner.workspaceId, '--name', 'Side project', '--json')).out,
    );
    assert.equal(brand.name, 'Side project');
    const list = JSON.parse((await cli('brands', 'list', '--workspace', t.owner.workspaceId, '--json')).out) as {
      items: Array<{ id: string; is_default: boolean }>;
      has_more: boolean;
    };
    assert.ok(list.items.some((b) => b.id === brand.id && !b.is_default));
    assert.ok(list.items.some((b) => b.is_default));
  });

  test('brands show, update and delete speak the API: same shapes, same version check, same rules', async () => {
    const made = JSON.parse(
      (
        await cli(
          'brands',
          'create',
          '--workspace',
          t.owner.workspaceId,
          '--name',
          'Shell brand',
          '--data',
          '{"banned_terms":["cheap"],"voice":{"formality":4}}',
          '--json',
        )
      ).out,
    );
    assert.equal(made.slug, 'shell-brand');
    const api = await t.inject({ url: `/v1/brands/${made.id}`, key: await t.key() });
    assert.deepEqual(made, api.json().data, 'the CLI prints what the API answers');
    const shown = JSON.parse(
      (await cli('brands', 'show', '--workspace', t.owner.workspaceId, '--brand', made.id, '--context', '--json')).out,
    );
    assert.match(shown.text, /Never use these terms: "cheap"/);
    const updated = await cli(
      'brands',
      'update',
      '--workspace',
      t.owner.workspaceId,
      '--brand',
      made.id,
      '--data',
      '{"industry":"Tea"}',
      '--json',
    );
    assert.equal(updated.code, 0, updated.err);
    assert.deepEqual([JSON.parse(updated.out).industry, JSON.parse(updated.out).version], ['Tea', 2]);
    const stale = await cli(
      'brands',
      'update',
      '--workspace',
      t.owner.workspaceId,
      '--brand',
      made.id,
      '--version',
      '1',
      '--data',
      '{"industry":"Coffee"}',
    );
    assert.equal(stale.code, 1);
    assert.match(stale.err, /version 2/);
    const invalid = await cli(
      'brands',
      'create',
      '--workspace',
      t.owner.workspaceId,
      '--name',
      'X',
      '--data',
      '{"colors":["red"]}',
    );
    assert.equal(invalid.code, 2);
    assert.match(invalid.err, /\/colors\/0/);
    const def = await cli('brands', 'delete', '--workspace', t.owner.workspaceId, '--brand', t.owner.brandId);
    assert.equal(def.code, 1);
    assert.match(def.err, /default brand/);
    const gone = await cli('brands', 'delete', '--workspace', t.owner.workspaceId, '--brand', made.id, '--json');
    assert.equal(gone.code, 0, gone.err);
    assert.deepEqual(JSON.parse(gone.out), { id: made.id, object: 'brand', deleted: true });
  });

  test('keys create: hk_test_ for test-only workspaces, hk_live_ otherwise; the key works at once', async () => {
    const created = await cli(
      'keys',
      'create',
      '--workspace',
      t.owner.workspaceId,
      '--name',
      'ci',
      '--scopes',
      'posts:read,posts:write',
      '--json',
    );
    assert.equal(created.code, 0, created.err);
    const k = JSON.parse(created.out);
    // The api_key shape of `keys list`, plus the key itself.
    assert.deepEqual(Object.keys(k).sort(), [
      'brand_ids',
      'created_at',
      'expires_at',
      'id',
      'key',
      'last4',
      'last_used_at',
      'name',
      'oauth',
      'object',
      'prefix',
      'profile',
      'revoked_at',
      'scopes',
      'workspace_ids',
    ]);
    assert.match(k.key, /^hk_test_[0-9A-Za-z]{36}$/);
    assert.equal(k.profile, 'standard');
    assert.deepEqual(k.scopes, ['posts:read', 'posts:write']);
    assert.equal((await t.inject({ url: '/v1/posts', key: k.key })).statusCode, 200);
    const live = JSON.parse((await cli('workspaces', 'create', '--name', 'Prod', '--json')).out);
    const liveKey = JSON.parse(
      (
        await cli(
          'keys',
          'create',
          '--workspace',
          `${live.id},${t.owner.workspaceId}`,
          '--name',
          'prod',
          '--scopes',
          'all',
          '--expires-at',
          '2099-01-01T00:00:00Z',
          '--json',
        )
      ).out,
    );
    assert.match(liveKey.key, /^hk_live_/);
    assert.equal(liveKey.expires_at, '2099-01-01T00:00:00.000Z');
    assert.deepEqual(
      liveKey.scopes,
      [...ALL_SCOPES],
      '`all` is every scope of today but keys:manage and members:manage',
    );
  });

  test('keys list never shows a key; keys revoke revokes', async () => {
    const k = JSON.parse(
      (
        await cli(
          'keys',
          'create',
          '--workspace',
          t.owner.workspaceId,
          '--name',
          'to revoke',
          '--scopes',
          'all',
          '--json',
        )
      ).out,
    );
    const list = await cli('keys', 'list', '--json');
    assert.ok(!list.out.includes(k.key));
    assert.ok((JSON.parse(list.out) as Array<{ id: string }>).some((row) => row.id === k.id));
    const revoked = await cli('keys', 'revoke', k.id);
    assert.equal(revoked.code, 0);
    assert.match(revoked.out, /revoked/);
    assert.match((await cli('keys', 'list')).out, new RegExp(`${k.id}.*revoked`));
  });

  test("keys list shows each key's scopes and expiry; create --json has the same api_key shape plus the key", async () => {
    const created = JSON.parse(
      (
        await cli(
          'keys',
          'create',
          '--workspace',
          t.owner.workspaceId,
          '--name',
          'narrow',
          '--scopes',
          'posts:read,media:write',
          '--expires-at',
          '2098-05-06T07:08:09Z',
          '--json',
        )
      ).out,
    ) as Record<string, unknown>;
    const listed = (JSON.parse((await cli('keys', 'list', '--json')).out) as Array<Record<string, unknown>>).find(
      (row) => row.id === created.id,
    );
    const { key, ...shape } = created;
    assert.match(String(key), /^hk_/);
    assert.deepEqual(shape, listed);
    const text = (await cli('keys', 'list')).out;
    assert.match(
      text,
      new RegExp(
        `${String(created.id)}[^\\n]*narrow\\n\\s+scopes: posts:read, media:write\\n\\s+expires: 2098-05-06T07:08:09.000Z`,
      ),
    );
  });
});

describe('bad arguments', () => {
  const cases: Array<[string[], RegExp]> = [
    [
      ['keys', 'create', '--workspace', 'nope', '--name', 'x', '--scopes', 'all'],
      /--workspace must be workspace UUIDs/,
    ],
    [['keys', 'create', '--name', 'x', '--scopes', 'all'], /--workspace is required/],
    [
      ['keys', 'create', '--workspace', '00000000-0000-4000-8000-000000000000', '--name', 'x', '--scopes', 'posts:fly'],
      /unknown scope posts:fly/,
    ],
    [
      ['keys', 'create', '--workspace', '00000000-0000-4000-8000-000000000000', '--name', 'x', '--scopes', 'all'],
      /Unknown workspace/,
    ],
    [
      [
        'keys',
        'create',
        '--workspace',
        '00000000-0000-4000-8000-000000000000',
        '--name',
        'x',
        '--scopes',
        'all',
        '--expires-at',
        'tomorrow',
      ],
      /--expires-at must be an ISO 8601/,
    ],
    [['workspaces', 'create', '--name', 'x', '--mode', 'staging'], /--mode must be live or test/],
    [['workspaces', 'create', '--colour', 'red'], /Unknown option '--colour'/],
    [['keys', 'revoke'], /key id is required/],
    [['keys', 'revoke', 'key_missing'], /no key key_missing/],
    [['serve', '--role', 'everything'], /--role must be all, api or worker/],
  ];
  for (const [argv, message] of cases) {
    test(`herald ${argv.join(' ')} → one-line error, usage, exit 2`, async () => {
      const res = await cli(...argv);
      assert.equal(res.code, 2, res.err);
      assert.match(res.err, message);
      assert.match(res.err, /Usage: herald /);
    });
  }

  test('unknown commands and missing subcommands point at the help', async () => {
    const unknown = await cli('frobnicate');
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /unknown command "frobnicate".*--help/s);
    const partial = await cli('keys');
    assert.equal(partial.code, 2);
    assert.match(partial.err, /herald keys create/);
  });

  test('--help on every command prints its usage and exits 0', async () => {
    for (const argv of [
      ['--help'],
      ['serve', '--help'],
      ['migrate', '--help'],
      ['init', '--help'],
      ['keys', 'create', '--help'],
      ['keys', 'list', '--help'],
      ['keys', 'revoke', '--help'],
      ['workspaces', 'create', '--help'],
      ['workspaces', 'list', '--help'],
      ['brands', 'create', '--help'],
      ['brands', 'list', '--help'],
      ['brands', 'show', '--help'],
      ['brands', 'update', '--help'],
      ['brands', 'delete', '--help'],
    ]) {
      const res = await cli(...argv);
      assert.equal(res.code, 0, argv.join(' '));
      assert.match(res.out, /Usage: herald/);
    }
  });

  test('an invalid environment is reported, every problem at once', async () => {
    const saved = env;
    env = { PORT: 'eighty', HERALD_LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x' };
    try {
      const res = await cli('migrate');
      assert.equal(res.code, 2);
      assert.match(res.err, /PORT must be an integer/);
      assert.match(res.err, /HERALD_LOG_LEVEL must be one of/);
      assert.match(res.err, /DATABASE_URL must use postgres/);
    } finally {
      env = saved;
    }
  });
});

describe('the embedded database', () => {
  test("first start prints a key once; admin commands attach to a running server's cluster or start their own", async () => {
    await mkdir(path.join(import.meta.dirname, '.tmp'), { recursive: true });
    const dataDir = await mkdtemp(path.join(import.meta.dirname, '.tmp', 'cli-embedded-'));
    const embeddedEnv = { HERALD_DATA_DIR: dataDir, DATABASE_URL: '', HERALD_SECRET_KEY: '', PORT: '0' };
    try {
      const started = performance.now();
      const first = spawnHerald(['serve'], embeddedEnv);
      let url = await first.url;
      console.log(
        `# first start on a fresh data dir (initdb, migrate, bootstrap, listen) took ${Math.round(performance.now() - started)} ms`,
      );
      const printed = /Workspace\s+([0-9a-f-]{36}).*API key\s+(hk_test_\w+)/s.exec(first.output());
      assert.ok(printed, `the first start prints the workspace and a key:\n${first.output()}`);
      const [, workspaceId, firstKey] = printed;
      assert.equal((await fetch(`${url}/v1/posts`, { headers: { authorization: `Bearer ${firstKey}` } })).status, 200);

      const created = await runHerald(
        ['keys', 'create', '--workspace', workspaceId!, '--name', 'attached', '--scopes', 'posts:read', '--json'],
        embeddedEnv,
      );
      assert.equal(created.code, 0, created.stderr);
      const res = await fetch(`${url}/v1/posts`, {
        headers: { authorization: `Bearer ${JSON.parse(created.stdout).key}` },
      });
      assert.equal(res.status, 200, 'the key made by the attached CLI works on the running server');
      assert.equal(await first.stop('SIGINT'), 0, `clean shutdown on SIGINT; output:\n${first.output().slice(-3000)}`);

      const second = spawnHerald(['serve'], embeddedEnv);
      url = await second.url;
      assert.doesNotMatch(second.output(), /API key\s+hk_/, 'a second start prints no key');
      assert.equal(
        (await fetch(`${url}/v1/posts`, { headers: { authorization: `Bearer ${firstKey}` } })).status,
        200,
        'and reuses everything',
      );
      assert.equal(
        await second.stop('SIGTERM'),
        0,
        `clean shutdown on SIGTERM; output:\n${second.output().slice(-3000)}`,
      );

      const after = await runHerald(['keys', 'list', '--json'], embeddedEnv);
      assert.equal(after.code, 0, after.stderr);
      assert.equal(
        JSON.parse(after.stdout).length,
        2,
        'with no server running, the command started the cluster itself',
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
