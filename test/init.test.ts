// `herald init` on a fresh database sets up what the first `herald serve` would: the owner, the Sandbox workspace
// with a sandbox connection per platform, a password and a first key, shown once. A `serve` started afterwards
// finds everything in place and creates nothing more (the deploy guide runs init, then `--role api` processes,
// which never set anything up themselves).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../src/cli.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/lib/logger.ts';
import { startHerald } from '../src/serve.ts';
import { TEST_SECRET } from './helpers/app.ts';
import { createTestDatabase } from './helpers/db.ts';
import { freePort } from './helpers/ports.ts';

test('herald init on a fresh database: owner, Sandbox, its sandbox connections and a working key; a later serve adds nothing', async () => {
  const db = await createTestDatabase();
  // A migrated database with nothing in it (the guide runs `herald migrate` first).
  const env = {
    DATABASE_URL: db.connectionString,
    HERALD_SECRET_KEY: TEST_SECRET,
    HERALD_PUBLIC_URL: 'http://herald.test',
    HERALD_OWNER_EMAIL: 'ops@example.com',
  };
  const run = async (...argv: string[]) => {
    let out = '';
    let err = '';
    const code = await main(argv, { out: (s) => (out += `${s}\n`), err: (s) => (err += `${s}\n`), env });
    return { code, out, err };
  };
  try {
    const first = await run('init', '--json');
    assert.equal(first.code, 0, first.err);
    const made = JSON.parse(first.out) as {
      created: boolean;
      email: string;
      workspace_id: string;
      connections: string[];
      api_key: string | null;
      password: string | null;
    };
    assert.equal(made.created, true);
    assert.equal(made.email, 'ops@example.com');
    assert.match(String(made.api_key), /^hk_test_/);
    assert.ok(made.password);
    const platforms = made.connections.map((c) => c.split(':')[0]).sort();
    assert.ok(platforms.length >= 7, `a sandbox connection per platform: ${made.connections.join(', ')}`);

    // The human form of a second run says it is already set up and shows no secret.
    const again = await run('init');
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /^Already set up\.\nOwner ops@example\.com/);
    assert.doesNotMatch(again.out, /hk_test_|Password/);

    // The first `serve` after init: the same workspace, nothing printed, the init key works on its API.
    const port = await freePort();
    const config = loadConfig({ ...env, PORT: String(port), HOST: '127.0.0.1' });
    let printed = '';
    const running = await startHerald(config, 'api', {
      logger: createLogger('silent'),
      print: (text) => (printed += text),
    });
    try {
      assert.equal(printed, '');
      const res = await fetch(`${running.url}/v1/connections`, {
        headers: { authorization: `Bearer ${made.api_key}` },
      });
      assert.equal(res.status, 200);
      const listed = (await res.json()) as { data: { items: Array<{ platform: string }> } };
      assert.deepEqual(listed.data.items.map((c) => c.platform).sort(), platforms);
    } finally {
      await running.stop();
    }
    const all = await startHerald({ ...config, port: 0 }, 'all', {
      logger: createLogger('silent'),
      print: (text) => (printed += text),
    });
    await all.stop();
    assert.equal(printed, '', 'serve --role all after init creates nothing and prints nothing');
  } finally {
    await db.drop();
  }
});
