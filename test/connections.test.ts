// Connections: GET /v1/connections[/{id}] (scope, filters, cursor, tenant isolation, never a token), the CLI
// that connects sandbox accounts and real Bluesky and Mastodon accounts (through the SSRF guard), and how
// posts choose connections (connection_ids, brand defaults, an instance's own limits).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../src/cli.ts';
import { createPlatformHttp } from '../src/platforms/http.ts';
import { createPlatformRegistry } from '../src/platforms/registry.ts';
import { simulatedPlatforms, startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, TEST_SECRET, type TestApp } from './helpers/app.ts';

let t: TestApp;
let key: string;
let mastodon: RunningSandbox;
let bluesky: RunningSandbox;

before(async () => {
  t = await buildTestApp();
  key = await t.key();
  mastodon = await startSandbox({ platforms: ['mastodon'], atRoot: true, settings: { maxCharacters: 1000 } });
  bluesky = await startSandbox({ platforms: ['bluesky'], atRoot: true });
});
after(async () => {
  await t.close();
  await mastodon.close();
  await bluesky.close();
});

async function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, {
    out: (s) => (out += `${s}\n`),
    err: (s) => (err += `${s}\n`),
    env: { DATABASE_URL: t.db.connectionString, HERALD_SECRET_KEY: TEST_SECRET, HERALD_LOG_LEVEL: 'silent', ...env },
  });
  return { code, out, err };
}

/** The `connection.connected` events of one connection (their data). */
async function connectedEvents(connectionId: string): Promise<unknown[]> {
  const { rows } = await t.container.pool.query(
    `SELECT data FROM events WHERE type = 'connection.connected' AND data->>'id' = $1`,
    [connectionId],
  );
  return rows.map((r) => r.data);
}

describe('GET /v1/connections', () => {
  test("lists the Sandbox brand's seeded connection per platform, defaults, sandbox, and no credentials", async () => {
    const res = await t.inject({ url: '/v1/connections', key });
    assert.equal(res.statusCode, 200);
    const items = res.json().data.items as Array<Record<string, unknown>>;
    // One per platform that has both an adapter and a simulator (x, bluesky, mastodon, linkedin, …).
    assert.deepEqual(
      items.map((c) => c.platform).sort(),
      simulatedPlatforms()
        .filter((p) => createPlatformRegistry().get(p))
        .sort(),
    );
    assert.ok(items.some((c) => c.platform === 'linkedin'));
    for (const c of items) {
      assert.equal(c.object, 'connection');
      assert.equal(c.sandbox, true);
      assert.equal(c.is_default, true);
      assert.equal(c.status, 'active');
    }
    assert.doesNotMatch(res.body, /credential|access_?token|refresh|jwt|password/i);
  });

  test('filters by platform, pages with a cursor bound to the filters', async () => {
    const x = (await t.inject({ url: '/v1/connections?platform=x', key })).json().data;
    assert.deepEqual(
      x.items.map((c: { platform: string }) => c.platform),
      ['x'],
    );
    const first = (await t.inject({ url: '/v1/connections?limit=2', key })).json().data;
    assert.equal(first.has_more, true);
    const second = (await t.inject({ url: `/v1/connections?limit=2&cursor=${first.next_cursor}`, key })).json().data;
    const all = (await t.inject({ url: '/v1/connections', key })).json().data.items.length;
    assert.equal(second.items.length, Math.min(2, all - 2));
    assert.ok(
      !second.items.some((c: { id: string }) => first.items.some((f: { id: string }) => f.id === c.id)),
      'the second page continues after the first',
    );
    assert.equal(
      (await t.inject({ url: `/v1/connections?limit=2&platform=x&cursor=${first.next_cursor}`, key })).statusCode,
      400,
    );
  });

  test("one connection by id; another workspace's is a 404; a key without connections:read is a 403", async () => {
    assert.equal((await t.inject({ url: `/v1/connections/${t.connections.x}`, key })).json().data.id, t.connections.x);
    const other = await t.workspace('test');
    const otherKey = await t.key({ workspaceIds: [other.workspaceId] });
    assert.equal((await t.inject({ url: `/v1/connections/${t.connections.x}`, key: otherKey })).statusCode, 404);
    const narrow = await t.key({ scopes: ['posts:read'] });
    assert.equal(
      (await t.inject({ url: '/v1/connections', key: narrow })).json().error.code,
      'PUBLIC_API_SCOPE_FORBIDDEN',
    );
  });
});

describe('herald connections', () => {
  test('add-sandbox connects another simulated X account; a post naming both gets a target for each', async () => {
    const res = await cli([
      'connections',
      'add-sandbox',
      '--workspace',
      t.owner.workspaceId,
      '--platform',
      'x',
      '--json',
    ]);
    assert.equal(res.code, 0, res.err);
    const [made] = JSON.parse(res.out);
    assert.equal(made.is_default, false, 'the brand already had a default X account');
    assert.deepEqual(
      await connectedEvents(made.id),
      [made],
      'connection.connected, with the connection as the CLI printed it',
    );
    const post = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: { content: 'two accounts', platforms: ['x'], connection_ids: [t.connections.x, made.id] },
    });
    assert.equal(post.statusCode, 201, post.body);
    assert.deepEqual(
      post.json().data.post.targets.map((x: { connection_id: string }) => x.connection_id),
      [t.connections.x, made.id],
    );
  });

  test('add-sandbox refuses a live workspace', async () => {
    const live = await t.workspace('live');
    const res = await cli(['connections', 'add-sandbox', '--workspace', live.workspaceId, '--all']);
    assert.equal(res.code, 2);
    assert.match(res.err, /test workspaces/);
  });

  test('add mastodon: a loopback instance is refused by the SSRF guard unless allow-listed; then per-instance limits apply', async () => {
    const { credentials } = await createPlatformRegistry()
      .get('mastodon')!
      .connectSandbox(createPlatformHttp({ baseUrl: mastodon.url }), { username: 'real_person' });
    const live = await t.workspace('live');
    const args = [
      'connections',
      'add',
      'mastodon',
      '--workspace',
      live.workspaceId,
      '--instance',
      mastodon.url,
      '--access-token',
      credentials.accessToken,
      '--json',
    ];
    const blocked = await cli(args);
    assert.notEqual(blocked.code, 0);
    assert.match(blocked.err, /private or reserved|HERALD_OUTBOUND_ALLOWLIST|https is required/);
    const ok = await cli(args, { HERALD_OUTBOUND_ALLOWLIST: '127.0.0.1' });
    assert.equal(ok.code, 0, ok.err);
    const made = JSON.parse(ok.out);
    assert.equal(made.sandbox, false);
    assert.match(made.handle, /^real_person@/);
    assert.deepEqual(await connectedEvents(made.id), [made]);
    assert.doesNotMatch(ok.out, new RegExp(credentials.accessToken.slice(-20)));
    // This instance allows 1,000 characters: a 800-character post passes here although stock Mastodon allows 500.
    const liveKey = await t.key({ workspaceIds: [live.workspaceId] });
    const long = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key: liveKey,
      payload: {
        content: 'a'.repeat(800),
        platforms: ['mastodon'],
        schedule_at: new Date(Date.now() + 3600_000).toISOString(),
      },
    });
    assert.equal(long.statusCode, 201, long.body);
    const tooLong = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key: liveKey,
      payload: { content: 'a'.repeat(1001), platforms: ['mastodon'], publish_now: true },
    });
    assert.equal(tooLong.statusCode, 422);
    assert.match(tooLong.json().error.details[0].message, /allows 1000/);
  });

  test('add bluesky: a session from handle and app password, checked with the PDS', async () => {
    const http = createPlatformHttp({ baseUrl: bluesky.url });
    const account = (
      await http.request({
        method: 'POST',
        path: '/xrpc/com.atproto.server.createAccount',
        json: { handle: 'someone.test', email: 's@example.com', password: 'a long password' },
      })
    ).json<{ accessJwt: string }>();
    const app = (
      await http.request({
        method: 'POST',
        path: '/xrpc/com.atproto.server.createAppPassword',
        bearer: account.accessJwt,
        json: { name: 'herald' },
      })
    ).json<{ password: string }>();
    const live = await t.workspace('live');
    const base = [
      'connections',
      'add',
      'bluesky',
      '--workspace',
      live.workspaceId,
      '--service',
      bluesky.url,
      '--handle',
      '@someone.test',
      '--json',
    ];
    const wrong = await cli([...base, '--app-password', 'nope-nope-nope-nope'], {
      HERALD_OUTBOUND_ALLOWLIST: '127.0.0.1',
    });
    assert.equal(wrong.code, 1);
    assert.match(wrong.err, /refused/);
    const ok = await cli([...base, '--app-password', app.password], { HERALD_OUTBOUND_ALLOWLIST: '127.0.0.1' });
    assert.equal(ok.code, 0, ok.err);
    assert.match(JSON.parse(ok.out).account_id, /^did:plc:/);
  });

  test('a connection of another brand cannot be named by a post', async () => {
    const res = await cli(['brands', 'create', '--workspace', t.owner.workspaceId, '--name', 'Other', '--json']);
    const brand = JSON.parse(res.out).id;
    const made = await cli([
      'connections',
      'add-sandbox',
      '--workspace',
      t.owner.workspaceId,
      '--brand',
      brand,
      '--platform',
      'mastodon',
      '--json',
    ]);
    const connection = JSON.parse(made.out)[0].id;
    const post = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: { content: 'mine', platforms: ['mastodon'], connection_ids: [connection] },
    });
    assert.equal(post.statusCode, 422);
    assert.equal(post.json().error.details[0].rule, 'connection_other_brand');
  });
});
