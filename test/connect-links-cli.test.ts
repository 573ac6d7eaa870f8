// The CLI side of connections: `herald connections connect` prints a link that walks through the consent, and
// `herald connections reseal` re-encrypts every connection after a key rotation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../src/cli.ts';
import { PUBLIC_URL_SETTING, setSetting } from '../src/features/workspaces/workspaces.repo.ts';
import { openCredentials } from '../src/features/connections/platform-access.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, TEST_SECRET, type TestApp } from './helpers/app.ts';
import { createBrowser } from './helpers/connect-browser.ts';
import { CLIENT, toAuthorize } from './helpers/connect-links.ts';

let t: TestApp;
let sandbox: RunningSandbox;

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildTestApp({ sandboxUrl: sandbox.url });
});
after(async () => {
  await t.close();
  await sandbox.close();
});

describe('herald connections connect / reseal', () => {
  async function cli(
    args: string[],
    env: Record<string, string> = {},
  ): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await main(args, {
      out: (x) => (out += `${x}\n`),
      err: (x) => (err += `${x}\n`),
      env: {
        DATABASE_URL: t.db.connectionString,
        HERALD_SECRET_KEY: TEST_SECRET,
        HERALD_LOG_LEVEL: 'silent',
        HERALD_PUBLIC_URL: 'http://herald.test',
        HERALD_SANDBOX_URL: sandbox.url,
        ...env,
      },
    });
    return { code, out, err };
  }

  test('connect prints a single-use link that walks through the consent; a live workspace without an X app is refused with the reason', async () => {
    const res = await cli([
      'connections',
      'connect',
      'x',
      '--workspace',
      t.owner.workspaceId,
      '--redirect-url',
      CLIENT,
      '--json',
    ]);
    assert.equal(res.code, 0, res.err);
    const link = JSON.parse(res.out);
    const browser = createBrowser(t);
    const authorize = await toAuthorize(browser, link.url);
    authorize.searchParams.set('sandbox_username', 'from_cli');
    const end = await browser.go(authorize.toString(), { stopAt: CLIENT });
    assert.match(new URL(end.location!).searchParams.get('connection_id')!, /^conn_/);
    const live = await t.workspace('live');
    const refused = await cli(['connections', 'connect', 'x', '--workspace', live.workspaceId]);
    assert.equal(refused.code, 2);
    assert.match(refused.err, /HERALD_X_CLIENT_ID/);
    assert.equal((await cli(['connections', 'connect', 'myspace', '--workspace', t.owner.workspaceId])).code, 2);
  });

  test('reseal re-encrypts every connection with the new key after a rotation, so the old key can go', async () => {
    const rotated = 'rotated-secret-key-0123456789abcdefghijklmnop';
    const res = await cli(['connections', 'reseal', '--json'], {
      HERALD_SECRET_KEY: rotated,
      HERALD_SECRET_KEYS_PREVIOUS: TEST_SECRET,
    });
    assert.equal(res.code, 0, res.err);
    assert.ok(JSON.parse(res.out).resealed > 0);
    const { rows } = await t.container.pool.query<{ credentials: Buffer }>(
      'SELECT credentials FROM connections WHERE length(credentials) > 0',
    );
    for (const r of rows) assert.ok(openCredentials({ current: rotated, previous: [] }, r.credentials).accessToken);
    // Put the test key back for the tests that follow.
    assert.equal(
      (await cli(['connections', 'reseal'], { HERALD_SECRET_KEY: TEST_SECRET, HERALD_SECRET_KEYS_PREVIOUS: rotated }))
        .code,
      0,
    );
  });

  test('without HERALD_PUBLIC_URL of its own, connect uses the public URL the API server recorded, not a default 8080', async () => {
    await setSetting(t.container.pool, PUBLIC_URL_SETTING, 'https://herald.example:18083');
    try {
      const res = await cli(['connections', 'connect', 'x', '--workspace', t.owner.workspaceId, '--json'], {
        HERALD_PUBLIC_URL: '',
      });
      assert.equal(res.code, 0, res.err);
      assert.match(JSON.parse(res.out).url, /^https:\/\/herald\.example:18083\/connect\//);
      const own = await cli(['connections', 'connect', 'x', '--workspace', t.owner.workspaceId, '--json']);
      assert.match(JSON.parse(own.out).url, /^http:\/\/herald\.test\/connect\//, 'its own setting wins');
    } finally {
      await t.container.pool.query('DELETE FROM instance_settings WHERE key = $1', [PUBLIC_URL_SETTING]);
    }
  });
});
