// /mcp as a client sees it with an ordinary Herald API key: the discovery challenge, Origin checks, scopes
// answered before dispatch, workspace isolation through every tool, idempotent writes, REST error codes in tool
// results, and the key's shared rate-limit budget.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { listenTestApp, type ListeningApp } from './helpers/oauth.ts';

let t: ListeningApp;

before(async () => {
  t = await listenTestApp({ HERALD_MCP_ALLOWED_ORIGINS: 'https://inspector.example' });
});
after(() => t.close());

async function rpc(body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.baseUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

const call = (name: string, args: Record<string, unknown>, id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

async function client(key: string, headers: Record<string, string> = {}): Promise<Client> {
  const c = new Client({ name: 'herald-test', version: '1.0.0' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}`, ...headers } },
    }),
  );
  return c;
}

type ToolError = {
  code: string;
  message: string;
  details?: Array<{ path?: string; platform?: string; rule?: string }>;
};
const errorOf = (result: unknown) => (result as { structuredContent: { error: ToolError } }).structuredContent.error;

describe('authentication and transport', () => {
  test('no credentials: 401 with the resource metadata and the scopes to ask for', async () => {
    const res = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    assert.equal(res.status, 401);
    const challenge = res.headers.get('www-authenticate')!;
    assert.match(
      challenge,
      new RegExp(`^Bearer resource_metadata="${t.baseUrl}/.well-known/oauth-protected-resource/mcp"`),
    );
    // The scopes of the tools (later features add theirs): each one a client may need is asked for.
    const asked = /scope="([^"]+)"/.exec(challenge)![1]!.split(' ');
    for (const scope of ['posts:read', 'posts:write', 'media:write', 'connections:read', 'brand:read', 'events:read'])
      assert.ok(asked.includes(scope), `asks for ${scope}`);
    for (const scope of ['approvals:read', 'approvals:write']) assert.ok(asked.includes(scope), `asks for ${scope}`);
    assert.equal(res.body.error.data.code, 'PUBLIC_API_AUTH_REQUIRED');
  });

  test('an unknown or malformed token: 401 invalid_token', async () => {
    const res = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: 'Bearer hk_test_nope' });
    assert.equal(res.status, 401);
    assert.match(res.headers.get('www-authenticate')!, /error="invalid_token"/);
    assert.equal(res.body.error.data.code, 'PUBLIC_API_KEY_INVALID');
  });

  test('a call without a token or with a bad one logs no error and no stack (every OAuth client starts so)', async () => {
    const refused: Array<Record<string, string>> = [{}, { authorization: 'Bearer hk_test_nope' }];
    for (const headers of refused) {
      const from = t.logs.length;
      const res = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers);
      assert.equal(res.status, 401);
      const lines = t.logs.slice(from);
      assert.deepEqual(
        lines.filter((line) => line.level >= 50),
        [],
        'an error-level line',
      );
      assert.deepEqual(
        lines.filter((line) => JSON.stringify(line).includes('"stack"')),
        [],
        'a stack trace',
      );
    }
  });

  test('an Origin that is neither the public URL nor allowed: 403; an allowed one gets CORS headers', async () => {
    const key = await t.key();
    const evil = await rpc(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { authorization: `Bearer ${key}`, origin: 'https://evil.example' },
    );
    assert.equal(evil.status, 403);
    assert.equal(evil.body.jsonrpc, '2.0');
    const allowed = await rpc(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { authorization: `Bearer ${key}`, origin: 'https://inspector.example' },
    );
    assert.equal(allowed.status, 200);
    assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://inspector.example');
    const own = await rpc(
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { authorization: `Bearer ${key}`, origin: t.baseUrl },
    );
    assert.equal(own.status, 200);
  });

  test('GET and DELETE are 405 (stateless server); bad JSON is a JSON-RPC parse error', async () => {
    const get = await fetch(`${t.baseUrl}/mcp`, { headers: { accept: 'text/event-stream' } });
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    const bad = await rpc('{"jsonrpc":', { authorization: `Bearer ${await t.key()}` });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, -32700);
  });

  test('an ordinary API key works through the SDK client; unknown tools are a JSON-RPC error', async () => {
    const c = await client(await t.key());
    const result = await c.callTool({ name: 'list_platforms', arguments: {} });
    assert.ok((result.structuredContent as { items: unknown[] }).items.length >= 7);
    await assert.rejects(c.callTool({ name: 'no_such_tool', arguments: {} }), /Unknown tool/);
    await c.close();
  });
});

describe('scopes', () => {
  test('a tool whose scope the key lacks is refused with 403 insufficient_scope before it runs', async () => {
    const key = await t.key({ scopes: ['posts:read'] });
    const res = await rpc(call('create_post', { content: 'x', platforms: ['x'] }), { authorization: `Bearer ${key}` });
    assert.equal(res.status, 403);
    const challenge = res.headers.get('www-authenticate')!;
    assert.match(challenge, /error="insufficient_scope"/);
    assert.match(challenge, /scope="posts:read posts:write"/, 'asks for what the key has plus what is missing');
    assert.match(challenge, /resource_metadata="/);
    assert.equal(res.body.error.data.code, 'PUBLIC_API_SCOPE_FORBIDDEN');
    const { rows } = await t.container.pool.query(`SELECT count(*)::int AS n FROM posts WHERE content = 'x'`);
    assert.equal(rows[0].n, 0);
    const read = await rpc(call('list_posts', {}), { authorization: `Bearer ${key}` });
    assert.equal(read.status, 200);
  });
});

describe('workspaces', () => {
  test('a key limited to workspace A cannot touch workspace B through any tool', async () => {
    const b = await t.workspace('test');
    const inB = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key: await t.key({ workspaceIds: [b.workspaceId] }),
      payload: { content: 'secret of B', platforms: ['x'] },
    });
    const postInB = inB.json().data.post_id as string;
    const keyA = await t.key({ workspaceIds: [t.owner.workspaceId] });
    const c = await client(keyA);
    const { tools } = await c.listTools();
    const workspaceTools = tools.filter((x) => x.inputSchema.properties?.workspace_id);
    assert.ok(workspaceTools.length >= 7);
    const sample: Record<string, Record<string, unknown>> = {
      create_post: { content: 'into B?', platforms: ['x'] },
      validate_post: { content: 'into B?', platforms: ['x'] },
      update_post: { content: 'changed' },
      create_media_upload: { filename: 'b.png', content_type: 'image/png' },
      create_media_from_url: { url: 'https://cdn.example.com/b.png' },
      decide_approval: { action: 'approve', version: 1 },
      decide_approval_batch: { action: 'approve_all', expected_item_ids: ['apr_01jdq4x1k9m2v7c3r5t8w0yz6b'] },
      update_insight: { status: 'viewed' },
      repurpose_content: { source: { type: 'text', text: 'into B?' }, targets: [{ platform: 'x', format: 'post' }] },
      create_automation: {
        name: 'into B?',
        source: { type: 'schedule', rrule: 'FREQ=DAILY', timezone: 'UTC' },
        generator: { type: 'library', items: ['into B?'] },
        destinations: [{ platform: 'x' }],
      },
      list_calendar_events: { from: '2026-12-01', to: '2026-12-10' },
      reschedule_calendar_event: { starts_at: new Date(Date.now() + 86_400_000).toISOString() },
      update_inbox_item: { status: 'resolved' },
      draft_inbox_reply: { text: 'into B?' },
      respond_inbox_item: { text: 'into B?' },
      add_to_queue: { content: 'into B?', platforms: ['x'] },
      create_queue: { name: 'into B?', slots: [] },
    };
    for (const tool of workspaceTools) {
      const args = {
        ...(sample[tool.name] ?? {}),
        ...(tool.inputSchema.required?.includes('post_id') ? { post_id: postInB } : {}),
        ...(tool.inputSchema.required?.includes('media_id') ? { media_id: 'med_01jdq4x1k9m2v7c3r5t8w0yz6b' } : {}),
        ...(tool.inputSchema.required?.includes('brand_id') ? { brand_id: b.brandId } : {}),
        ...(tool.inputSchema.required?.includes('approval_id')
          ? { approval_id: 'apr_01jdq4x1k9m2v7c3r5t8w0yz6b' }
          : {}),
        ...(tool.inputSchema.required?.includes('approval_batch_id')
          ? { approval_batch_id: 'aprb_01jdq4x1k9m2v7c3r5t8w0yz6e' }
          : {}),
        ...(tool.inputSchema.required?.includes('insight_id') ? { insight_id: 'ins_01jdq4x1k9m2v7c3r5t8w0yz6b' } : {}),
        ...(tool.inputSchema.required?.includes('repurpose_job_id')
          ? { repurpose_job_id: 'rep_01jdq4x1k9m2v7c3r5t8w0yz6b' }
          : {}),
        ...(tool.inputSchema.required?.includes('automation_id')
          ? { automation_id: 'auto_01jdq4x1k9m2v7c3r5t8w0yz6b' }
          : {}),
        ...(tool.inputSchema.required?.includes('calendar_event_id') ? { calendar_event_id: postInB } : {}),
        ...(tool.inputSchema.required?.includes('inbox_item_id')
          ? { inbox_item_id: 'inb_01jdq4x1k9m2v7c3r5t8w0yz6b' }
          : {}),
        ...(tool.inputSchema.required?.includes('queue_id') ? { queue_id: 'que_01jdq4x1k9m2v7c3r5t8w0yz6b' } : {}),
      };
      const viaArgument = await c.callTool({ name: tool.name, arguments: { ...args, workspace_id: b.workspaceId } });
      assert.equal(errorOf(viaArgument).code, 'PUBLIC_API_WORKSPACE_FORBIDDEN', `${tool.name} with workspace_id`);
      if (args.post_id) {
        const byId = await c.callTool({ name: tool.name, arguments: args });
        assert.equal(errorOf(byId).code, 'PUBLIC_API_NOT_FOUND', `${tool.name} on B's post id`);
      }
    }
    const viaHeader = await client(keyA, { 'x-herald-workspace-id': b.workspaceId });
    const res = await viaHeader.callTool({ name: 'list_posts', arguments: {} });
    assert.equal(errorOf(res).code, 'PUBLIC_API_WORKSPACE_FORBIDDEN');
    const { rows } = await t.container.pool.query('SELECT content FROM posts WHERE workspace_id = $1', [b.workspaceId]);
    assert.deepEqual(rows, [{ content: 'secret of B' }], 'B is untouched');
    await c.close();
    await viaHeader.close();
  });

  test('a key reaching several workspaces needs workspace_id (or the header), and then acts there', async () => {
    const other = await t.workspace('test');
    const c = await client(await t.key({ workspaceIds: null }));
    const missing = await c.callTool({ name: 'list_posts', arguments: {} });
    assert.equal(errorOf(missing).code, 'PUBLIC_API_WORKSPACE_REQUIRED');
    const made = await c.callTool({
      name: 'create_post',
      arguments: { content: 'in other', platforms: ['x'], workspace_id: other.workspaceId },
    });
    assert.equal((made.structuredContent as { post: { workspace_id: string } }).post.workspace_id, other.workspaceId);
    const listed = await c.callTool({ name: 'list_workspaces', arguments: {} });
    assert.ok(
      (listed.structuredContent as { items: Array<{ id: string }> }).items.some((w) => w.id === other.workspaceId),
    );
    await c.close();
  });
});

describe('brands', () => {
  test('a key limited to one brand acts for it; limited to several, creating needs brand_id while lists cover them all', async () => {
    const { createBrand } = await import('../src/features/workspaces/workspaces.service.ts');
    const one = await createBrand(t.container.pool, t.owner.workspaceId, 'Side project');
    const two = await createBrand(t.container.pool, t.owner.workspaceId, 'Other project');
    const single = await client(await t.key({ brandIds: [one.id] }));
    const made = await single.callTool({
      name: 'create_post',
      arguments: { content: 'for the side project', platforms: ['x'] },
    });
    assert.equal((made.structuredContent as { post: { brand_id: string } }).post.brand_id, one.id);
    const several = await client(await t.key({ brandIds: [one.id, two.id] }));
    const ambiguous = await several.callTool({
      name: 'create_post',
      arguments: { content: 'which brand?', platforms: ['x'] },
    });
    assert.equal(errorOf(ambiguous).code, 'PUBLIC_API_BRAND_FORBIDDEN');
    const named = await several.callTool({
      name: 'create_post',
      arguments: { content: 'this brand', platforms: ['x'], brand_id: two.id },
    });
    assert.equal((named.structuredContent as { post: { brand_id: string } }).post.brand_id, two.id);
    const listed = await several.callTool({ name: 'list_posts', arguments: {} });
    const brands = new Set(
      (listed.structuredContent as { items: Array<{ brand_id: string }> }).items.map((p) => p.brand_id),
    );
    assert.deepEqual([...brands].sort(), [one.id, two.id].sort());
    await single.close();
    await several.close();
  });
});

describe('tool calls', () => {
  test('a repeated write returns the first result, marked as a repeat, and acts once', async () => {
    const c = await client(await t.key());
    const args = { content: 'Only once, please', platforms: ['mastodon'] };
    const first = await c.callTool({ name: 'create_post', arguments: args });
    const second = await c.callTool({
      name: 'create_post',
      arguments: { platforms: ['mastodon'], content: 'Only once, please' },
    });
    const id = (r: typeof first) => (r.structuredContent as { post_id: string }).post_id;
    assert.equal(id(second), id(first));
    assert.equal(first._meta, undefined);
    assert.equal((second._meta as Record<string, unknown>)['herald/idempotent_replayed'], true);
    assert.match((second.content as Array<{ text: string }>)[0]!.text, /^Repeat/);
    const { rows } = await t.container.pool.query(
      `SELECT count(*)::int AS n FROM posts WHERE content = 'Only once, please'`,
    );
    assert.equal(rows[0].n, 1);
    // A new idempotency_key really does it again; the same key with other arguments is a conflict.
    const again = await c.callTool({ name: 'create_post', arguments: { ...args, idempotency_key: 'second-one' } });
    assert.notEqual(id(again), id(first));
    const conflict = await c.callTool({
      name: 'create_post',
      arguments: { ...args, content: 'other', idempotency_key: 'second-one' },
    });
    assert.equal(errorOf(conflict).code, 'PUBLIC_API_IDEMPOTENCY_CONFLICT');
    await c.close();
  });

  test('failures carry the REST codes and details: schema, rules, state', async () => {
    const c = await client(await t.key());
    const schema = await c.callTool({ name: 'create_post', arguments: { content: 'no platforms' } });
    assert.equal(schema.isError, true);
    assert.equal(errorOf(schema).code, 'PUBLIC_API_BODY_INVALID');
    assert.equal(errorOf(schema).details![0]!.path, '/platforms');
    const unknown = await c.callTool({ name: 'list_posts', arguments: { colour: 'blue' } });
    assert.equal(errorOf(unknown).code, 'PUBLIC_API_QUERY_INVALID');
    const rule = await c.callTool({
      name: 'create_post',
      arguments: { content: 'a'.repeat(400), platforms: ['x', 'linkedin'] },
    });
    assert.equal(errorOf(rule).code, 'PUBLIC_API_VALIDATION_FAILED');
    assert.deepEqual(
      errorOf(rule).details!.map((d) => `${d.platform}:${d.rule}`),
      ['x:text_too_long'],
    );
    assert.match(
      (rule.content as Array<{ text: string }>)[0]!.text,
      /^PUBLIC_API_VALIDATION_FAILED: .*\n- x · text_too_long/,
    );
    const missing = await c.callTool({ name: 'get_post', arguments: { post_id: 'post_nope' } });
    assert.equal(errorOf(missing).code, 'PUBLIC_API_NOT_FOUND');
    const created = await c.callTool({ name: 'create_post', arguments: { content: 'to cancel', platforms: ['x'] } });
    const postId = (created.structuredContent as { post_id: string }).post_id;
    await c.callTool({ name: 'cancel_post', arguments: { post_id: postId } });
    const edit = await c.callTool({ name: 'update_post', arguments: { post_id: postId, content: 'too late' } });
    assert.equal(errorOf(edit).code, 'PUBLIC_API_STATE_CONFLICT');
    await c.close();
  });

  test('every tool names a post post_id, a media item media_id, a connection connection_id; a bare id is refused by name', async () => {
    const c = await client(await t.key());
    const { tools } = await c.listTools();
    const takes = Object.fromEntries(tools.map((x) => [x.name, Object.keys(x.inputSchema.properties ?? {})]));
    for (const [name, args] of Object.entries(takes)) assert.ok(!args.includes('id'), `${name} takes a bare id`);
    const onePost = ['get_post', 'update_post', 'cancel_post', 'publish_post', 'retry_post', 'delete_post'];
    for (const name of onePost) {
      assert.ok(takes[name]!.includes('post_id'), `${name} takes post_id`);
      assert.ok(tools.find((x) => x.name === name)!.inputSchema.required!.includes('post_id'), `${name} needs it`);
    }
    assert.ok(takes.get_media!.includes('media_id'));
    assert.ok(takes.create_post!.includes('connection_ids') && takes.create_post!.includes('media_ids'));

    // What create_post returns is what the others take.
    const created = await c.callTool({ name: 'create_post', arguments: { content: 'named', platforms: ['x'] } });
    const postId = (created.structuredContent as { post_id: string }).post_id;
    const got = await c.callTool({ name: 'get_post', arguments: { post_id: postId } });
    assert.equal((got.structuredContent as { id: string }).id, postId);

    const old = await c.callTool({ name: 'get_post', arguments: { id: postId } });
    assert.equal(errorOf(old).code, 'PUBLIC_API_BODY_INVALID');
    assert.match(errorOf(old).message, /`id` is now called `post_id`/);
    assert.equal(errorOf(old).details![0]!.path, '/id');
    const oldMedia = await c.callTool({ name: 'get_media', arguments: { id: 'med_x' } });
    assert.match(errorOf(oldMedia).message, /`id` is now called `media_id`/);
    await c.close();
  });

  test('a scheduled post through MCP is scheduled exactly as through REST', async () => {
    const c = await client(await t.key());
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const made = await c.callTool({
      name: 'create_post',
      arguments: { content: 'Later', platforms: ['bluesky'], schedule_at: at },
    });
    const post = (made.structuredContent as { post: { id: string; status: string; schedule_at: string } }).post;
    assert.equal(post.status, 'scheduled');
    assert.equal(post.schedule_at, at);
    const rest = await t.inject({ method: 'GET', url: `/v1/posts/${post.id}`, key: await t.key() });
    assert.equal(rest.json().data.status, 'scheduled');
    await c.close();
  });
});

describe('rate limits', () => {
  test("MCP calls spend the key's budgets, shared with /v1", async () => {
    const limited = await listenTestApp({ HERALD_RATE_LIMIT_WRITE_PER_MIN: '2' });
    try {
      const key = await limited.key();
      const send = (body: unknown) =>
        fetch(`${limited.baseUrl}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify(body),
        });
      assert.equal((await send(call('create_post', { content: 'one', platforms: ['x'] }))).status, 200);
      const rest = await limited.inject({
        method: 'POST',
        url: '/v1/posts',
        key,
        payload: { content: 'two', platforms: ['x'] },
      });
      assert.equal(rest.statusCode, 201);
      const refused = await send(call('create_post', { content: 'three', platforms: ['x'] }));
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      assert.equal(
        ((await refused.json()) as { error: { data: { code: string } } }).error.data.code,
        'PUBLIC_API_RATE_LIMITED',
      );
      // Reads have their own budget.
      assert.equal((await send(call('list_posts', {}))).status, 200);
    } finally {
      await limited.close();
    }
  });
});
