// The brands over MCP (brand:read): list_brands and get_brand_context, the same service, access and errors as
// GET /v1/brands and GET /v1/brands/{id}/context.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BRAND_CONTEXT_MAX_CHARS } from '../src/features/brands/context.ts';
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

async function makeBrand(body: Record<string, unknown>): Promise<string> {
  const res = await t.inject({ method: 'POST', url: '/v1/brands', key: await t.key(), payload: body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.id;
}

describe('brand tools', () => {
  test('list_brands and get_brand_context answer what REST answers, behind brand:read', async () => {
    const id = await makeBrand({ name: 'Tooling', banned_terms: ['cheap'], voice: { descriptors: ['dry'] } });
    const key = await t.key({ scopes: ['brand:read'] });
    const c = await client(key);
    const { tools } = await c.listTools();
    const context = tools.find((x) => x.name === 'get_brand_context')!;
    assert.deepEqual(context.inputSchema.required, ['brand_id']);
    assert.equal(context.annotations?.readOnlyHint, true);

    const listed = await c.callTool({ name: 'list_brands', arguments: {} });
    const rest = (await t.inject({ url: '/v1/brands', key })).json().data;
    assert.deepEqual(listed.structuredContent, rest);
    assert.match((listed.content as Array<{ text: string }>)[0]!.text, new RegExp(`${id} · Tooling \\(tooling\\)`));

    const got = await c.callTool({ name: 'get_brand_context', arguments: { brand_id: id } });
    assert.equal(got.isError, undefined);
    const data = got.structuredContent as { text: string; max_chars: number; version: number };
    assert.deepEqual(data, (await t.inject({ url: `/v1/brands/${id}/context`, key })).json().data);
    assert.equal(data.max_chars, BRAND_CONTEXT_MAX_CHARS);
    assert.match((got.content as Array<{ text: string }>)[0]!.text, /Never use these terms: "cheap"/);
    await c.close();
  });

  test('a key without brand:read is refused; a brand-limited key reaches only its brands', async () => {
    const id = await makeBrand({ name: 'Hidden' });
    const visible = await makeBrand({ name: 'Visible' });
    const noScope = await client(await t.key({ scopes: ['posts:read'] }));
    await assert.rejects(noScope.callTool({ name: 'list_brands', arguments: {} }), /brand:read/);
    await noScope.close();

    const limited = await client(await t.key({ brandIds: [visible] }));
    const listed = await limited.callTool({ name: 'list_brands', arguments: {} });
    assert.deepEqual(
      (listed.structuredContent as { items: Array<{ id: string }> }).items.map((b) => b.id),
      [visible],
    );
    const hidden = await limited.callTool({ name: 'get_brand_context', arguments: { brand_id: id } });
    assert.equal(hidden.isError, true);
    assert.equal((hidden.structuredContent as { error: { code: string } }).error.code, 'PUBLIC_API_NOT_FOUND');
    await limited.close();
  });

  test('the context is also a resource, herald://brands/{brand_id}/context, behind the same access', async () => {
    const id = await makeBrand({ name: 'Resourceful', required_terms: ['#ad'] });
    const c = await client(await t.key({ scopes: ['brand:read'] }));
    const { resourceTemplates } = await c.listResourceTemplates();
    assert.deepEqual(
      resourceTemplates.map((r) => r.uriTemplate),
      ['herald://brands/{brand_id}/context'],
    );
    const { resources } = await c.listResources();
    const uri = `herald://brands/${id}/context`;
    assert.ok(resources.some((r) => r.uri === uri && r.mimeType === 'text/plain'));
    const read = await c.readResource({ uri });
    const rest = (await t.inject({ url: `/v1/brands/${id}/context`, key: await t.key() })).json().data;
    assert.equal((read.contents[0] as { text: string }).text, rest.text);
    assert.match(rest.text, /Always include these terms: "#ad"/);
    await assert.rejects(c.readResource({ uri: 'herald://brands/brand_nope/context' }), /No brand/);
    await assert.rejects(c.readResource({ uri: 'https://example.com/x' }), /Unknown resource/);
    await c.close();

    const limited = await client(await t.key({ brandIds: [t.owner.brandId] }));
    await assert.rejects(limited.readResource({ uri }), /No brand/);
    await limited.close();
    const noScope = await client(await t.key({ scopes: ['posts:read'] }));
    await assert.rejects(noScope.readResource({ uri }), /brand:read/);
    await noScope.close();
  });

  test("validate_post and create_post tell the model the brand's warnings and additions", async () => {
    const key = await t.key();
    const current = (await t.inject({ url: `/v1/brands/${t.owner.brandId}`, key })).json().data;
    const patched = await t.inject({
      method: 'PATCH',
      url: `/v1/brands/${t.owner.brandId}`,
      key,
      payload: {
        version: current.version,
        banned_terms: ['cheap'],
        default_hashtags: ['#acme'],
        rules: { default_hashtags: { apply: 'always' } },
      },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const c = await client(key);
    const checked = await c.callTool({
      name: 'validate_post',
      arguments: { content: 'cheap beans', platforms: ['x'] },
    });
    const text = (checked.content as Array<{ text: string }>)[0]!.text;
    assert.match(text, /passes every check/);
    assert.match(text, /warning · x: The brand bans the term "cheap"/);
    assert.match(text, /x: the brand adds default_hashtags/);
    const made = await c.callTool({ name: 'create_post', arguments: { content: 'cheap beans', platforms: ['x'] } });
    assert.match((made.content as Array<{ text: string }>)[0]!.text, /Brand rules:\n- warning · x/);
    await c.close();
  });
});
