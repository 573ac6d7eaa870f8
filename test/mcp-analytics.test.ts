// The MCP face of the analytics API: the tools run the same service calls, scopes and schemas as /v1/analytics —
// a post's metrics, the summary, insights generated, listed and marked — and refuse a key without the scope.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { listenTestApp, type ListeningApp } from './helpers/oauth.ts';
import { onePost, seedPublishedPost } from './helpers/analytics.ts';

let t: ListeningApp;
let c: Client;
let postId: string;

before(async () => {
  t = await listenTestApp();
  c = await client(await t.key());
  const base = { workspaceId: t.owner.workspaceId, brandId: t.owner.brandId };
  for (const [i, likes] of [9, 9, 10, 10, 10, 11, 11, 12, 12, 100].entries()) {
    const seeded = await seedPublishedPost(
      t.container.pool,
      onePost(
        base,
        'x',
        new Date(Date.now() - (i + 2) * 86_400_000),
        { likes, impressions: 1000 },
        {
          connectionId: t.connections.x,
          unavailable: ['saves'],
        },
      ),
    );
    if (likes === 100) postId = seeded.postId;
  }
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

const text = (result: Record<string, unknown>) => (result.content as Array<{ text: string }>)[0]!.text;

test('get_post_analytics and get_analytics_summary answer what the REST endpoints answer', async () => {
  const post = await c.callTool({ name: 'get_post_analytics', arguments: { post_id: postId } });
  assert.equal(post.isError, undefined, JSON.stringify(post.structuredContent));
  const data = post.structuredContent as { targets: Array<{ metrics: Record<string, unknown> }> };
  assert.deepEqual(data.targets[0]!.metrics.saves, { value: null, status: 'unavailable' });
  assert.match(text(post), /100 engagements/);

  const summary = await c.callTool({ name: 'get_analytics_summary', arguments: { platform: ['x'], top: 1 } });
  assert.equal(summary.isError, undefined, JSON.stringify(summary.structuredContent));
  const rest = await t.inject({ url: '/v1/analytics/summary?platform=x&top=1', key: await t.key() });
  const s = summary.structuredContent as { totals: unknown; top_posts: Array<{ post_id: string }> };
  assert.deepEqual(s.totals, rest.json().data.totals);
  assert.equal(s.top_posts[0]!.post_id, postId);
});

test('generate_insights, list_insights and update_insight; analytics:write is needed to generate', async () => {
  const generated = await c.callTool({ name: 'generate_insights', arguments: { period: '30d' } });
  assert.equal(generated.isError, undefined, JSON.stringify(generated.structuredContent));
  const items = (generated.structuredContent as { items: Array<{ id: string; kind: string }> }).items;
  const top = items.find((i) => i.kind === 'top_post');
  assert.ok(top);
  assert.match(text(generated), /top_post/);

  const marked = await c.callTool({ name: 'update_insight', arguments: { insight_id: top.id, status: 'acted_upon' } });
  assert.equal(marked.isError, undefined, JSON.stringify(marked.structuredContent));
  const listed = await c.callTool({ name: 'list_insights', arguments: { status: ['acted_upon'] } });
  assert.deepEqual(
    (listed.structuredContent as { items: Array<{ id: string }> }).items.map((i) => i.id),
    [top.id],
  );

  const reader = await client(await t.key({ scopes: ['analytics:read'] }));
  try {
    await assert.rejects(reader.callTool({ name: 'generate_insights', arguments: {} }), /PUBLIC_API_SCOPE_FORBIDDEN/);
  } finally {
    await reader.close();
  }
});
