// Queues over MCP: create_queue and list_queues mirror /v1/queues (queues:write, queues:read), add_to_queue is
// POST /v1/posts with `queue` (posts:write), and preview_queue_slots shows the slot the post took as taken.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { listenTestApp, type ListeningApp } from './helpers/oauth.ts';

let t: ListeningApp;

before(async () => {
  t = await listenTestApp({});
});
after(() => t.close());

async function client(key: string): Promise<Client> {
  const c = new Client({ name: 'herald-test', version: '1.0.0' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return c;
}

test('create_queue, add_to_queue and preview_queue_slots: the post takes the first slot, shown as taken', async () => {
  const c = await client(await t.key({ scopes: ['queues:read', 'queues:write', 'posts:write'] }));
  const created = await c.callTool({
    name: 'create_queue',
    arguments: {
      name: 'Every morning',
      slots: [0, 1, 2, 3, 4, 5, 6].map((d) => ({ day_of_week: d, time: '09:00', timezone: 'Europe/Paris' })),
    },
  });
  assert.equal(created.isError, undefined, JSON.stringify(created.structuredContent));
  const queueId = (created.structuredContent as { id: string }).id;
  const listed = await c.callTool({ name: 'list_queues', arguments: {} });
  assert.ok((listed.structuredContent as { items: Array<{ id: string }> }).items.some((q) => q.id === queueId));

  const added = await c.callTool({
    name: 'add_to_queue',
    arguments: { content: 'Queued from an assistant', platforms: ['x'], queue_id: queueId },
  });
  assert.equal(added.isError, undefined, JSON.stringify(added.structuredContent));
  const post = (added.structuredContent as { post: { id: string; schedule_at: string; queue_slot: string } }).post;
  assert.equal(post.queue_slot, post.schedule_at);
  assert.match(String((added.content as Array<{ text: string }>)[0]!.text), /goes out at/);

  const preview = await c.callTool({ name: 'preview_queue_slots', arguments: { queue_id: queueId } });
  assert.equal(preview.isError, undefined, JSON.stringify(preview.structuredContent));
  const slots = (preview.structuredContent as { slots: Array<{ at: string; status: string; post_id: string | null }> })
    .slots;
  assert.deepEqual(slots[0], { ...slots[0], at: post.schedule_at, status: 'taken', post_id: post.id });
  assert.ok(slots.slice(1).every((s) => s.status === 'free'));
  await c.close();
});

test('add_to_queue needs posts:write and preview_queue_slots queues:read', async () => {
  const c = await client(await t.key({ scopes: ['posts:read'] }));
  for (const [name, args] of [
    ['add_to_queue', { content: 'no', platforms: ['x'] }],
    ['preview_queue_slots', { queue_id: 'que_01jdq4x1k9m2v7c3r5t8w0yz6b' }],
  ] as const) {
    // A missing scope is refused before the tool runs, as a JSON-RPC error carrying the API's code.
    await assert.rejects(c.callTool({ name, arguments: args }), (error: Error) => {
      assert.match(error.message, /PUBLIC_API_SCOPE_FORBIDDEN/, name);
      return true;
    });
  }
  await c.close();
});
