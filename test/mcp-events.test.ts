// The MCP face of the events API and of metadata and local scheduling: list_events runs GET /v1/events (same scope,
// same filters, same brand limits), and create_post / list_posts take `metadata` and `timezone` as REST does.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { listenTestApp, type ListeningApp } from './helpers/oauth.ts';

let t: ListeningApp;
let c: Client;

before(async () => {
  t = await listenTestApp();
  c = await client(await t.key());
});
after(async () => {
  await c.close();
  await t.close();
});

async function client(key: string): Promise<Client> {
  const mcp = new Client({ name: 'herald-test', version: '1.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return mcp;
}

type Data = Record<string, unknown> & { items: Array<Record<string, unknown>> };

test('create_post takes metadata and a local schedule_at with timezone; list_posts filters by metadata', async () => {
  const created = await c.callTool({
    name: 'create_post',
    arguments: {
      content: 'from MCP',
      platforms: ['x'],
      schedule_at: '2031-07-01T09:00',
      timezone: 'Europe/Paris',
      metadata: { ticket: 'MCP-7' },
    },
  });
  assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
  const post = (created.structuredContent as { post: Record<string, unknown> }).post;
  assert.equal(post.schedule_at, '2031-07-01T07:00:00.000Z');
  assert.equal(post.timezone, 'Europe/Paris');
  assert.deepEqual(post.metadata, { ticket: 'MCP-7' });
  const listed = await c.callTool({ name: 'list_posts', arguments: { metadata: { ticket: 'MCP-7' } } });
  const items = (listed.structuredContent as Data).items;
  assert.deepEqual(
    items.map((p) => p.id),
    [post.id],
  );
});

test('list_events lists the events with the filters of GET /v1/events, and needs events:read', async () => {
  const result = await c.callTool({ name: 'list_events', arguments: { type: ['post.scheduled'], limit: 5 } });
  assert.equal(result.isError, undefined, JSON.stringify(result.structuredContent));
  const data = result.structuredContent as Data;
  assert.ok(data.items.length > 0);
  assert.ok(data.items.every((e) => e.type === 'post.scheduled'));
  const text = (result.content as Array<{ text: string }>)[0]!.text;
  assert.match(text, /post\.scheduled/);
  const bad = await c.callTool({ name: 'list_events', arguments: { type: ['post.nope'] } });
  assert.equal(bad.isError, true);

  const without = await client(await t.key({ scopes: ['posts:read'] }));
  try {
    // Refused before the call, as a JSON-RPC error naming the scope (tools/call of a tool the key cannot use).
    await assert.rejects(without.callTool({ name: 'list_events', arguments: {} }), /PUBLIC_API_SCOPE_FORBIDDEN/);
  } finally {
    await without.close();
  }
});
