// Metadata (docs/api.md "Metadata") on posts, media and webhook endpoints: Stripe's limits, set on creation, merged
// by edits (a key set to "" or null is removed, `metadata: null` removes all), returned everywhere the resource is
// (views, lists, event payloads), and filterable on GET /v1/posts with `metadata[key]=value`.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, type TestApp } from './helpers/app.ts';
import { webhookApiOptions } from './helpers/webhooks-api.ts';

let t: TestApp;
let key: string;

before(async () => {
  t = await buildTestApp(webhookApiOptions());
  key = await t.key();
});
after(() => t.close());

async function createPost(metadata: unknown) {
  return t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: { content: 'metadata', platforms: ['x'], metadata },
  });
}

async function patchPost(id: string, metadata: unknown) {
  return t.inject({ method: 'PATCH', url: `/v1/posts/${id}`, key, payload: { metadata } });
}

const manyKeys = (n: number, prefix = 'k') =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, 'v']));

describe('metadata on posts', () => {
  test('is stored on creation (a "" value is left out) and returned by the view, lists and events', async () => {
    const res = await createPost({ crm_id: 'cmp_1', campaign: 'spring', empty: '' });
    assert.equal(res.statusCode, 201, res.body);
    const post = res.json().data.post;
    assert.deepEqual(post.metadata, { crm_id: 'cmp_1', campaign: 'spring' });
    const got = await t.inject({ url: `/v1/posts/${post.id}`, key });
    assert.deepEqual(got.json().data.metadata, { crm_id: 'cmp_1', campaign: 'spring' });
    const { rows } = await t.container.pool.query<{ data: { metadata: unknown } }>(
      `SELECT data FROM events WHERE type = 'post.created' AND data->>'id' = $1`,
      [post.id],
    );
    assert.deepEqual(rows[0]!.data.metadata, { crm_id: 'cmp_1', campaign: 'spring' });
    const plain = await createPost(undefined);
    assert.deepEqual(plain.json().data.post.metadata, {});
  });

  test("refuses what breaks Stripe's limits, with the field named", async () => {
    const cases: Array<[string, unknown]> = [
      ['51 keys', manyKeys(51)],
      ['a 41-character key', { ['k'.repeat(41)]: 'v' }],
      ['square brackets in a key', { 'a[b]': 'v' }],
      ['an empty key', { '': 'v' }],
      ['a 501-character value', { k: 'v'.repeat(501) }],
      ['a number value', { k: 1 }],
      ['a nested object', { k: { a: 'b' } }],
      ['an array', ['a']],
    ];
    for (const [name, metadata] of cases) {
      const res = await createPost(metadata);
      assert.equal(res.statusCode, 400, `${name}: ${res.body}`);
      assert.equal(res.json().error.code, 'PUBLIC_API_BODY_INVALID', name);
      assert.ok(
        (res.json().error.details as Array<{ path: string }>).some((d) => d.path.startsWith('/metadata')),
        `${name}: ${res.body}`,
      );
    }
    const limits = await createPost({ ...manyKeys(50), ['k'.repeat(40)]: undefined, x: 'v'.repeat(500) });
    assert.equal(limits.statusCode, 400, 'the 51st key is one too many');
    const edge = await createPost({ ...manyKeys(49), ['k'.repeat(40)]: 'v'.repeat(500) });
    assert.equal(edge.statusCode, 201, edge.body);
  });

  test('an edit merges: keys set, "" and null remove, others stay; null removes every key', async () => {
    const id = (await createPost({ a: '1', b: '2', c: '3' })).json().data.post_id;
    const merged = await patchPost(id, { a: 'one', b: '', c: null, d: '4' });
    assert.equal(merged.statusCode, 200, merged.body);
    assert.deepEqual(merged.json().data.metadata, { a: 'one', d: '4' });
    const other = await t.inject({ method: 'PATCH', url: `/v1/posts/${id}`, key, payload: { content: 'edited' } });
    assert.deepEqual(other.json().data.metadata, { a: 'one', d: '4' }, 'an edit without metadata keeps it');
    const cleared = await patchPost(id, null);
    assert.deepEqual(cleared.json().data.metadata, {});
  });

  test('an edit that would leave more than 50 keys is refused and changes nothing', async () => {
    const id = (await createPost(manyKeys(40))).json().data.post_id;
    const res = await patchPost(id, manyKeys(11, 'new'));
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.json().error.message, /51 keys/);
    const unchanged = await t.inject({ url: `/v1/posts/${id}`, key });
    assert.equal(Object.keys(unchanged.json().data.metadata).length, 40);
    // Removing in the same request makes room.
    const swap = await patchPost(id, { ...manyKeys(11, 'new'), k0: null, k1: null });
    assert.equal(swap.statusCode, 200, swap.body);
    assert.equal(Object.keys(swap.json().data.metadata).length, 49);
  });

  test('GET /v1/posts?metadata[key]=value lists the posts holding every pair given', async () => {
    const tag = `run_${Date.now()}`;
    const a = (await createPost({ tag, team: 'red' })).json().data.post_id;
    const b = (await createPost({ tag, team: 'blue' })).json().data.post_id;
    await createPost({ tag: 'other', team: 'red' });
    const ids = async (query: string) => {
      const res = await t.inject({ url: `/v1/posts?limit=100&${query}`, key });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json().data.items as Array<{ id: string }>).map((p) => p.id).sort();
    };
    assert.deepEqual(await ids(`metadata[tag]=${tag}`), [a, b].sort());
    assert.deepEqual(await ids(`metadata[tag]=${tag}&metadata[team]=red`), [a]);
    assert.deepEqual(await ids(`metadata[tag]=${tag}&metadata[team]=green`), []);
    // A key named like a prototype property filters like any other (no post can hold it): nothing, not everything.
    assert.deepEqual(await ids(`metadata[__proto__]=${tag}`), []);
    assert.deepEqual(await ids(`metadata[constructor]=${tag}`), []);
    // Paging carries the filter (the cursor is bound to it).
    const first = await t.inject({ url: `/v1/posts?limit=1&metadata[tag]=${tag}`, key });
    const cursor = first.json().data.next_cursor as string;
    const second = await t.inject({ url: `/v1/posts?limit=1&metadata[tag]=${tag}&cursor=${cursor}`, key });
    assert.equal(second.json().data.items.length, 1);
    const wrong = await t.inject({ url: `/v1/posts?limit=1&metadata[tag]=other&cursor=${cursor}`, key });
    assert.equal(wrong.statusCode, 400);
    for (const bad of [`metadata[${'k'.repeat(41)}]=v`, `metadata[tag]=a&metadata[tag]=b`, `metadata[a[b]]=v`]) {
      const res = await t.inject({ url: `/v1/posts?${bad}`, key });
      assert.equal(res.statusCode, 400, `${bad}: ${res.body}`);
      assert.equal(res.json().error.code, 'PUBLIC_API_QUERY_INVALID');
    }
  });

  test('the OpenAPI document describes the filter as a deepObject query parameter', () => {
    const doc = t.app.swagger() as {
      paths: Record<string, Record<string, { parameters?: Array<Record<string, unknown>> }>>;
    };
    const param = doc.paths['/posts']!.get!.parameters!.find((p) => p.name === 'metadata')!;
    assert.equal(param.in, 'query');
    assert.equal(param.style, 'deepObject');
    assert.equal(param.explode, true);
  });
});

describe('metadata on media and webhook endpoints', () => {
  test('media: set with the upload URL, merged by PATCH /v1/media/{id}', async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/v1/media/upload-url',
      key,
      payload: { filename: 'm.png', content_type: 'image/png', metadata: { asset: 'a1', drop: '' } },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().data.media_id;
    const got = await t.inject({ url: `/v1/media/${id}`, key });
    assert.deepEqual(got.json().data.metadata, { asset: 'a1' });
    const patched = await t.inject({
      method: 'PATCH',
      url: `/v1/media/${id}`,
      key,
      payload: { metadata: { asset: null, shoot: 'spring' } },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual(patched.json().data.metadata, { shoot: 'spring' });
    const bad = await t.inject({
      method: 'PATCH',
      url: `/v1/media/${id}`,
      key,
      payload: { metadata: { 'x]': 'v' } },
    });
    assert.equal(bad.statusCode, 400);
    const unknown = await t.inject({
      method: 'PATCH',
      url: '/v1/media/med_missing',
      key,
      payload: { metadata: { a: 'b' } },
    });
    assert.equal(unknown.statusCode, 404);
  });

  test('webhook endpoints: set on creation, merged by PATCH, listed', async () => {
    const created = await t.inject({
      method: 'POST',
      url: '/v1/webhooks',
      key,
      payload: { url: 'https://hooks.example.com/meta', events: ['*'], metadata: { owner: 'ops', env: 'prod' } },
    });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().data.id;
    assert.deepEqual(created.json().data.metadata, { owner: 'ops', env: 'prod' });
    const patched = await t.inject({
      method: 'PATCH',
      url: `/v1/webhooks/${id}`,
      key,
      payload: { metadata: { env: '', region: 'eu' } },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual(patched.json().data.metadata, { owner: 'ops', region: 'eu' });
    const listed = await t.inject({ url: '/v1/webhooks', key });
    const item = (listed.json().data.items as Array<{ id: string; metadata: unknown }>).find((e) => e.id === id)!;
    assert.deepEqual(item.metadata, { owner: 'ops', region: 'eu' });
  });
});
