// The whole journey of an assistant product, driven by the MCP SDK's own client over real HTTP: 401 → discovery
// → dynamic registration → a person signs in and consents → code → token → tools/list and tools/call — then
// refresh, and revocation taking effect on /mcp and /v1 within a second.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { main } from '../src/cli.ts';
import { TEST_SECRET } from './helpers/app.ts';
import {
  Browser,
  consent,
  createPerson,
  listenTestApp,
  TestOAuthProvider,
  type ListeningApp,
} from './helpers/oauth.ts';

let t: ListeningApp;
let teamA: { workspaceId: string; brandId: string };
let teamB: { workspaceId: string; brandId: string };
const person = { email: 'casey@example.com', password: 'correct horse battery staple' };

before(async () => {
  t = await listenTestApp();
  teamA = await t.workspace('test');
  teamB = await t.workspace('test');
  await createPerson(t, person.email, person.password, [
    { workspaceId: teamA.workspaceId },
    { workspaceId: teamB.workspaceId, role: 'admin' },
  ]);
});
after(() => t.close());

async function connect(provider: TestOAuthProvider): Promise<Client> {
  const client = new Client({ name: 'herald-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), { authProvider: provider }));
  return client;
}

describe('an assistant connects through OAuth and acts for one person in the workspace they chose', () => {
  const provider = new TestOAuthProvider({ name: 'Claude (test)' });
  let client: Client;
  let redirect: URL;

  test('the first connection is refused with 401, and the SDK discovers, registers and asks for authorization', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), { authProvider: provider });
    await assert.rejects(new Client({ name: 'herald-test', version: '1.0.0' }).connect(transport), UnauthorizedError);
    assert.ok(provider.client?.client_id.startsWith('mcpc_'), 'registered dynamically');
    const url = provider.authorizationUrl!;
    assert.equal(url.origin + url.pathname, `${t.baseUrl}/oauth/authorize`);
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.equal(url.searchParams.get('resource'), `${t.baseUrl}/mcp`);

    // The person signs in, sees who asks and what for, picks workspace B and answers.
    const browser = new Browser(t.baseUrl);
    const answered = await consent(browser, url, { ...person, target: teamB.workspaceId });
    assert.match(answered.page, /Claude \(test\)/);
    assert.match(answered.page, /127\.0\.0\.1:53682/, 'the redirect host is shown');
    assert.match(answered.page, /posts:write<\/code> — Create, edit, schedule/, 'each scope is explained');
    redirect = answered.redirect;
    assert.equal(redirect.origin + redirect.pathname, provider.redirectUrl);
    assert.equal(redirect.searchParams.get('state'), url.searchParams.get('state'), 'state is echoed');
    assert.equal(redirect.searchParams.get('iss'), t.baseUrl, 'RFC 9207 iss');
    assert.ok(redirect.searchParams.get('code'));

    await transport.finishAuth(redirect.searchParams.get('code')!);
    assert.match(provider.saved!.access_token, /^hk_test_/, 'the access token is a Herald API key');
    assert.ok(provider.saved!.refresh_token?.startsWith('hrt_'));
    assert.equal(provider.saved!.expires_in, 3600);
  });

  test('tools/list describes the tools with the REST schemas', async () => {
    client = await connect(provider);
    const { tools } = await client.listTools();
    const names = tools.map((x) => x.name);
    for (const name of [
      'list_posts',
      'get_post',
      'create_post',
      'update_post',
      'cancel_post',
      'publish_post',
      'retry_post',
      'delete_post',
      'validate_post',
      'create_media_upload',
      'get_media',
      'list_connections',
      'list_platforms',
      'list_workspaces',
    ]) {
      assert.ok(names.includes(name), `${name} is listed`);
    }
    const create = tools.find((x) => x.name === 'create_post')!;
    assert.deepEqual(create.inputSchema.required, ['content', 'platforms']);
    assert.ok(create.inputSchema.properties?.schedule_at, 'the REST body fields');
    assert.ok(create.inputSchema.properties?.idempotency_key, 'plus idempotency_key');
    assert.equal(create.annotations?.readOnlyHint, false);
    assert.match(create.description!, /DRAFT/);
  });

  test('create_post makes a draft in the chosen workspace and nowhere else', async () => {
    const result = await client.callTool({
      name: 'create_post',
      arguments: { content: 'Hello from an assistant', platforms: ['bluesky'] },
    });
    assert.equal(result.isError, undefined);
    const data = result.structuredContent as {
      post_id: string;
      post: { workspace_id: string; status: string; created_via: string };
    };
    assert.equal(data.post.workspace_id, teamB.workspaceId);
    assert.equal(data.post.status, 'draft');
    assert.equal(data.post.created_via, 'mcp');
    assert.match((result.content as Array<{ text: string }>)[0]!.text, /draft/);
    const { rows } = await t.container.pool.query('SELECT workspace_id FROM posts WHERE id = $1', [data.post_id]);
    assert.deepEqual(rows, [{ workspace_id: teamB.workspaceId }]);
    const inA = await t.container.pool.query('SELECT count(*)::int AS n FROM posts WHERE workspace_id = $1', [
      teamA.workspaceId,
    ]);
    assert.equal(inA.rows[0].n, 0);
  });

  test('the key appears in `herald keys list` with the client name', async () => {
    let out = '';
    const env = { DATABASE_URL: t.db.connectionString, HERALD_SECRET_KEY: TEST_SECRET };
    assert.equal(await main(['keys', 'list'], { out: (s) => (out += s), err: () => {}, env }), 0);
    assert.match(out, /hk_test_\w+…\w{4}\s+active\s+OAuth: Claude \(test\) \(grant grant_\w+, renewed hourly\)/);
    let json = '';
    await main(['keys', 'list', '--json'], { out: (s) => (json += s), err: () => {}, env });
    const row = (JSON.parse(json) as Array<{ workspace_ids: string[]; oauth: { client_name: string } | null }>).find(
      (k) => k.oauth?.client_name === 'Claude (test)',
    );
    assert.deepEqual(row?.workspace_ids, [teamB.workspaceId]);
  });

  test('a refresh replaces the key: the new one works, the old one stops', async () => {
    const old = provider.saved!;
    assert.equal(
      (await fetch(`${t.baseUrl}/v1/workspaces`, { headers: { authorization: `Bearer ${old.access_token}` } })).status,
      200,
      'the key works on /v1 too',
    );
    const body = new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: old.refresh_token!,
      client_id: provider.client!.client_id,
      resource: `${t.baseUrl}/mcp`,
    });
    const res = await fetch(`${t.baseUrl}/oauth/token`, { method: 'POST', body });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const fresh = (await res.json()) as { access_token: string; refresh_token: string };
    assert.notEqual(fresh.access_token, old.access_token);
    assert.notEqual(fresh.refresh_token, old.refresh_token);
    const started = Date.now();
    for (;;) {
      const check = await fetch(`${t.baseUrl}/v1/workspaces`, {
        headers: { authorization: `Bearer ${old.access_token}` },
      });
      if (check.status === 401) break;
      assert.ok(Date.now() - started < 5000, 'the old key is refused within the cache lifetime');
      await new Promise((r) => setTimeout(r, 50));
    }
    console.log(`# old key refused ${Date.now() - started} ms after the refresh`);
    provider.saveTokens({ ...old, ...fresh });
    client = await connect(provider);
    const listed = await client.callTool({ name: 'list_posts', arguments: {} });
    assert.equal((listed.structuredContent as { items: unknown[] }).items.length, 1);
  });

  test('revoking the OAuth key is refused by /mcp and by /v1 within one second', async () => {
    const token = provider.saved!.access_token;
    assert.equal(
      (await fetch(`${t.baseUrl}/v1/workspaces`, { headers: { authorization: `Bearer ${token}` } })).status,
      200,
    );
    const { rows } = await t.container.pool.query<{ id: string }>(
      `SELECT id FROM api_keys WHERE grant_id IS NOT NULL AND revoked_at IS NULL`,
    );
    assert.equal(rows.length, 1);
    const { revokeKey } = await import('../src/features/keys/keys.service.ts');
    await revokeKey(t.container.pool, rows[0]!.id);
    const started = Date.now();
    let mcpStatus = 0;
    let v1Status = 0;
    while (Date.now() - started < 5000) {
      const mcp = await fetch(`${t.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      const v1 = await fetch(`${t.baseUrl}/v1/workspaces`, { headers: { authorization: `Bearer ${token}` } });
      mcpStatus = mcp.status;
      v1Status = v1.status;
      // Read both bodies: an unread response (tools/list is about 170 kB) holds its keep-alive socket paused, and
      // the socket then outlives the server's close.
      await Promise.all([mcp.arrayBuffer(), v1.arrayBuffer()]);
      if (mcpStatus === 401 && v1Status === 401) {
        assert.match(mcp.headers.get('www-authenticate')!, /error="invalid_token"/);
        break;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    const elapsed = Date.now() - started;
    console.log(`# revoked OAuth key refused on /mcp and /v1 after ${elapsed} ms`);
    assert.equal(mcpStatus, 401);
    assert.equal(v1Status, 401);
    // Revoking the key revoked the grant: its refresh token no longer works either.
    const body = new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: provider.saved!.refresh_token!,
      client_id: provider.client!.client_id,
    });
    const res = await fetch(`${t.baseUrl}/oauth/token`, { method: 'POST', body });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: string }).error, 'invalid_grant');
  });
});
