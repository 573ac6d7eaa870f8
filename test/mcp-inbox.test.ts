// The inbox over MCP (docs/inbox.md "MCP"): list_inbox, get_inbox_item, update_inbox_item, draft_inbox_reply and
// respond_inbox_item answer what /v1/inbox answers, behind inbox:read / inbox:write; a repeated reply posts once;
// a platform rule and a bad assignee come back as errors naming the rule; a brand-limited key sees only its brands'
// items.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fakePlatform, seedItems } from './helpers/inbox.ts';
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

const textOf = (r: unknown) => (r as { content: Array<{ text: string }> }).content[0]!.text;
const errorOf = (r: unknown) =>
  (r as { structuredContent: { error: { code: string; details?: Array<{ rule?: string }> } } }).structuredContent.error;

const INBOX_TOOLS = ['draft_inbox_reply', 'get_inbox_item', 'list_inbox', 'respond_inbox_item', 'update_inbox_item'];

describe('inbox tools', () => {
  test('list_inbox and get_inbox_item answer what REST answers, behind inbox:read', async () => {
    const [first, second] = await seedItems(t, [
      { text: 'Is this in stock?', threadId: 'th-mcp', platformItemId: 'th-mcp', authorId: 'm1' },
      { text: 'Any news?', threadId: 'th-mcp', authorId: 'm1', receivedAt: new Date(Date.now() + 1000) },
    ]);
    const key = await t.key({ scopes: ['inbox:read'] });
    const c = await client(key);
    const { tools } = await c.listTools();
    const names = tools.map((x) => x.name).filter((n) => INBOX_TOOLS.includes(n));
    assert.deepEqual(names.toSorted(), INBOX_TOOLS);
    const get = tools.find((x) => x.name === 'get_inbox_item')!;
    assert.deepEqual(get.inputSchema.required, ['inbox_item_id']);
    assert.equal(get.annotations?.readOnlyHint, true);

    const listed = await c.callTool({ name: 'list_inbox', arguments: { status: ['open'] } });
    assert.equal(listed.isError, undefined, JSON.stringify(listed.structuredContent));
    const rest = (await t.inject({ url: '/v1/inbox?status=open', key })).json().data;
    assert.deepEqual(listed.structuredContent, rest);
    assert.match(textOf(listed), new RegExp(`${second!.id} · open · comment on x from user_m1: "Any news\\?"`));

    const got = await c.callTool({ name: 'get_inbox_item', arguments: { inbox_item_id: second!.id } });
    assert.equal(got.isError, undefined);
    assert.deepEqual(got.structuredContent, (await t.inject({ url: `/v1/inbox/${second!.id}`, key })).json().data);
    const thread = (got.structuredContent as { thread: Array<{ id: string }> }).thread.map((i) => i.id);
    assert.deepEqual(thread, [first!.id, second!.id]);

    const missing = await c.callTool({ name: 'get_inbox_item', arguments: { inbox_item_id: 'inb_nope' } });
    assert.equal(missing.isError, true);
    assert.equal(errorOf(missing).code, 'PUBLIC_API_NOT_FOUND');

    // Reading only: the writing tools are refused.
    await assert.rejects(
      c.callTool({ name: 'update_inbox_item', arguments: { inbox_item_id: first!.id, status: 'resolved' } }),
      /inbox:write/,
    );
    await c.close();
  });

  test('update_inbox_item triages; an assignee who is not a member is an error naming the rule', async () => {
    const [item] = await seedItems(t, [{ text: 'Triage me' }]);
    const c = await client(await t.key({ scopes: ['inbox:read', 'inbox:write'] }));
    const updated = await c.callTool({
      name: 'update_inbox_item',
      arguments: {
        inbox_item_id: item!.id,
        status: 'resolved',
        labels: ['vip', 'billing'],
        assignee_id: t.owner.userId,
      },
    });
    assert.equal(updated.isError, undefined, JSON.stringify(updated.structuredContent));
    const data = updated.structuredContent as { status: string; labels: string[]; assignee_id: string };
    assert.equal(data.status, 'resolved');
    assert.deepEqual(data.labels, ['billing', 'vip']);
    assert.equal(data.assignee_id, t.owner.userId);

    const stranger = await c.callTool({
      name: 'update_inbox_item',
      arguments: { inbox_item_id: item!.id, assignee_id: '00000000-0000-4000-8000-000000000000' },
    });
    assert.equal(stranger.isError, true);
    assert.equal(errorOf(stranger).details?.[0]?.rule, 'assignee_not_member');

    const bad = await c.callTool({ name: 'update_inbox_item', arguments: { inbox_item_id: item!.id, status: 'gone' } });
    assert.equal(bad.isError, true);
    await c.close();
  });

  test('draft_inbox_reply then respond_inbox_item with the draft: posted once, even called twice', async () => {
    const sent = fakePlatform(t);
    const [item] = await seedItems(t, [{ text: 'How much is shipping?' }]);
    const c = await client(await t.key({ scopes: ['inbox:read', 'inbox:write'] }));
    const drafted = await c.callTool({
      name: 'draft_inbox_reply',
      arguments: { inbox_item_id: item!.id, template: 'Hi {{author}}, shipping is free.' },
    });
    assert.equal(drafted.isError, undefined, JSON.stringify(drafted.structuredContent));
    assert.equal((drafted.structuredContent as { draft: { text: string } }).draft.text, 'Hi Ada, shipping is free.');
    assert.match(textOf(drafted), /draft: "Hi Ada, shipping is free\."/);

    const generated = await c.callTool({ name: 'draft_inbox_reply', arguments: { inbox_item_id: item!.id } });
    assert.equal(generated.isError, true, 'exactly one of text, template, generate');

    const call = () =>
      c.callTool({ name: 'respond_inbox_item', arguments: { inbox_item_id: item!.id, use_draft: true } });
    const answered = await call();
    assert.equal(answered.isError, undefined, JSON.stringify(answered.structuredContent));
    const result = answered.structuredContent as { status: string; platform_reply_id: string };
    assert.equal(result.status, 'sent');
    assert.match(textOf(answered), new RegExp(`Sent \\(platform reply ${result.platform_reply_id}\\)`));
    const again = await call();
    assert.deepEqual(again.structuredContent, answered.structuredContent);
    assert.equal(sent.length, 1, 'the platform was asked once');
    assert.deepEqual(sent[0], { itemId: item!.id, text: 'Hi Ada, shipping is free.', private: false });
    const shown = (await t.inject({ url: `/v1/inbox/${item!.id}`, key: await t.key() })).json().data;
    assert.equal(shown.status, 'replied');
    assert.equal(shown.responses.length, 1);
    await c.close();
  });

  test('a platform rule is an error naming it', async () => {
    fakePlatform(t, () => ({
      ok: false,
      code: 'PLATFORM_ITEM_DELETED',
      rule: 'item_deleted',
      message: 'The comment was deleted.',
      retryable: false,
    }));
    const [item] = await seedItems(t, [{ text: 'Soon deleted' }]);
    const c = await client(await t.key({ scopes: ['inbox:write'] }));
    const res = await c.callTool({ name: 'respond_inbox_item', arguments: { inbox_item_id: item!.id, text: 'Hi!' } });
    assert.equal(res.isError, true);
    const error = errorOf(res);
    assert.equal(error.code, 'PUBLIC_API_VALIDATION_FAILED');
    assert.equal(error.details?.[0]?.rule, 'item_deleted');
    await c.close();
  });

  test("a brand-limited key sees only its brands' items", async () => {
    const other = await t.inject({ method: 'POST', url: '/v1/brands', key: await t.key(), payload: { name: 'Other' } });
    assert.equal(other.statusCode, 201, other.body);
    const [mine] = await seedItems(t, [{ text: 'for the default brand' }]);
    const c = await client(await t.key({ brandIds: [other.json().data.id] }));
    const listed = await c.callTool({ name: 'list_inbox', arguments: {} });
    assert.deepEqual((listed.structuredContent as { items: unknown[] }).items, []);
    const hidden = await c.callTool({ name: 'get_inbox_item', arguments: { inbox_item_id: mine!.id } });
    assert.equal(hidden.isError, true);
    assert.equal(errorOf(hidden).code, 'PUBLIC_API_NOT_FOUND');
    await c.close();
  });
});
