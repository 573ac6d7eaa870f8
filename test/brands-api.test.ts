// The brands API (docs/api.md "Brands"): field validation and limits, paging, optimistic concurrency on `version`,
// the delete rules, brand-limited keys, events, and the compiled context over REST.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BRAND_LIMITS } from '../src/features/brands/brands.schemas.ts';
import { BRAND_CONTEXT_MAX_CHARS } from '../src/features/brands/context.ts';
import { SCOPES } from '../src/features/keys/scopes.ts';
import { buildMediaTestApp, uploadBytes, type MediaTestApp } from './helpers/media.ts';
import { pdf, png } from './helpers/media-fixtures.ts';

let t: MediaTestApp;
let key: string;

before(async () => {
  t = await buildMediaTestApp({
    env: { HERALD_RATE_LIMIT_WRITE_PER_MIN: '100000', HERALD_RATE_LIMIT_READ_PER_MIN: '100000' },
  });
  key = await t.key();
});
after(() => t.close());

async function create(body: Record<string, unknown>, k = key) {
  return t.inject({ method: 'POST', url: '/v1/brands', key: k, payload: body });
}

async function made(body: Record<string, unknown>): Promise<Record<string, unknown> & { id: string; version: number }> {
  const res = await create(body);
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data;
}

async function patch(id: string, body: Record<string, unknown>, k = key) {
  return t.inject({ method: 'PATCH', url: `/v1/brands/${id}`, key: k, payload: body });
}

async function eventsOf(type: string, brandId: string) {
  const { rows } = await t.container.pool.query<{ data: Record<string, unknown> }>(
    `SELECT data FROM events WHERE type = $1 AND data ->> 'brand_id' = $2 ORDER BY created_at, id`,
    [type, brandId],
  );
  return rows.map((r) => r.data);
}

describe('fields', () => {
  test('a brand with every field round-trips, with defaults filled in and a slug made from the name', async () => {
    const logo = await uploadBytes(t, key, png(), 'image/png');
    const doc = await uploadBytes(t, key, pdf(), 'application/pdf');
    const brand = await made({
      name: 'Café Ünïcode & Co',
      website: 'https://cafe.example/about',
      industry: 'Coffee',
      timezone: 'europe/paris',
      language: 'fr-FR',
      colors: ['#AABBCC', '#000000'],
      logo_media_id: logo.mediaId,
      voice: { descriptors: ['warm'], formality: 2, emoji: 'light', do: ['Say hello'], examples: ['Bonjour !'] },
      audience: { summary: 'Parisians', segments: ['students'] },
      goals: ['More visits'],
      offer: 'Coffee and croissants',
      guidelines_md: '# Tone\nBe kind.',
      banned_terms: ['cheap'],
      required_terms: ['#ad'],
      default_hashtags: ['#cafe'],
      signature: '— Café',
      cta_default: 'Visit us',
      memory: [{ text: 'Opened in 1999', tags: ['history'] }],
      documents: [{ media_id: doc.mediaId, title: 'Menu' }],
      rules: { signature: { apply: 'platforms', platforms: ['linkedin'] } },
    });
    assert.equal(brand.slug, 'cafe-unicode-co');
    assert.equal(brand.timezone, 'Europe/Paris', 'stored in its canonical spelling');
    assert.deepEqual(brand.colors, ['#aabbcc', '#000000']);
    assert.equal(brand.version, 1);
    assert.equal(brand.is_default, false);
    assert.deepEqual(brand.voice, {
      descriptors: ['warm'],
      formality: 2,
      emoji: 'light',
      hashtags: null,
      do: ['Say hello'],
      dont: [],
      examples: ['Bonjour !'],
    });
    const memory = brand.memory as Array<{ id: string; text: string; tags: string[] }>;
    assert.match(memory[0]!.id, /^mem_/);
    assert.deepEqual(brand.rules, {
      banned_terms: { severity: 'warning' },
      required_terms: { apply: 'always', platforms: [], when_missing: 'warning' },
      signature: { apply: 'platforms', platforms: ['linkedin'] },
      cta: { apply: 'never', platforms: [] },
      default_hashtags: { apply: 'never', platforms: [] },
    });
    const got = await t.inject({ url: `/v1/brands/${brand.id}`, key });
    assert.deepEqual(got.json().data, brand);
    // Its logo and documents are kept: deleting them is refused while the brand uses them.
    const del = await t.inject({ method: 'DELETE', url: `/v1/media/${logo.mediaId}`, key });
    assert.equal(del.statusCode, 409, del.body);
    assert.match(del.json().error.message, new RegExp(brand.id));
    const [created] = await eventsOf('brand.created', brand.id);
    assert.equal(created?.slug, 'cafe-unicode-co');
  });

  test('each field over its limit is a 400 naming the field', async () => {
    const long = (n: number) => 'x'.repeat(n + 1);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: long(BRAND_LIMITS.name) }, '/name'],
      [{ name: 'a', slug: 'Not A Slug' }, '/slug'],
      [{ name: 'a', website: 'ftp://x.example' }, '/website'],
      [{ name: 'a', colors: ['red'] }, '/colors/0'],
      [{ name: 'a', voice: { formality: 6 } }, '/voice/formality'],
      [{ name: 'a', voice: { emoji: 'lots' } }, '/voice/emoji'],
      [{ name: 'a', voice: { examples: [long(BRAND_LIMITS.voice.examples.length)] } }, '/voice/examples/0'],
      [{ name: 'a', banned_terms: Array(BRAND_LIMITS.banned_terms.items + 1).fill('t') }, '/banned_terms'],
      [{ name: 'a', banned_terms: ['two\nlines'] }, '/banned_terms/0'],
      [{ name: 'a', default_hashtags: ['nohash'] }, '/default_hashtags/0'],
      [{ name: 'a', guidelines_md: long(BRAND_LIMITS.guidelines_md) }, '/guidelines_md'],
      [{ name: 'a', memory: [{ text: long(BRAND_LIMITS.memory.text) }] }, '/memory/0/text'],
      [{ name: 'a', memory: Array(BRAND_LIMITS.memory.items + 1).fill({ text: 'm' }) }, '/memory'],
      [{ name: 'a', documents: [{ media_id: 'med_x' }] }, '/documents/0'],
      [{ name: 'a', rules: { banned_terms: { severity: 'fatal' } } }, '/rules/banned_terms/severity'],
      [{ name: 'a', website: `https://x.example/${long(BRAND_LIMITS.website)}` }, '/website'],
      [{ name: 'a', industry: long(BRAND_LIMITS.industry) }, '/industry'],
      [{ name: 'a', timezone: `A/${long(BRAND_LIMITS.timezone)}` }, '/timezone'],
      [{ name: 'a', language: 'english please' }, '/language'],
      [{ name: 'a', colors: Array(BRAND_LIMITS.colors.items + 1).fill('#000000') }, '/colors'],
      [{ name: 'a', voice: { descriptors: [long(BRAND_LIMITS.voice.descriptors.length)] } }, '/voice/descriptors/0'],
      [{ name: 'a', voice: { dont: Array(BRAND_LIMITS.voice.dont.items + 1).fill('d') } }, '/voice/dont'],
      [{ name: 'a', audience: { summary: long(BRAND_LIMITS.audience.summary) } }, '/audience/summary'],
      [{ name: 'a', audience: { segments: [long(BRAND_LIMITS.audience.segments.length)] } }, '/audience/segments/0'],
      [{ name: 'a', goals: Array(BRAND_LIMITS.goals.items + 1).fill('g') }, '/goals'],
      [{ name: 'a', offer: long(BRAND_LIMITS.offer) }, '/offer'],
      [{ name: 'a', required_terms: [long(BRAND_LIMITS.required_terms.length)] }, '/required_terms/0'],
      [{ name: 'a', default_hashtags: Array(BRAND_LIMITS.default_hashtags.items + 1).fill('#t') }, '/default_hashtags'],
      [{ name: 'a', signature: long(BRAND_LIMITS.signature) }, '/signature'],
      [{ name: 'a', cta_default: long(BRAND_LIMITS.cta_default) }, '/cta_default'],
      [
        {
          name: 'a',
          memory: [
            {
              text: 'm',
              tags: Array(BRAND_LIMITS.memory.tags + 1)
                .fill(0)
                .map(String),
            },
          ],
        },
        '/memory/0/tags',
      ],
      [
        { name: 'a', documents: [{ media_id: 'med_x', title: long(BRAND_LIMITS.documents.title) }] },
        '/documents/0/title',
      ],
      [{ name: 'a', surprise: true }, ''],
    ];
    for (const [body, path] of cases) {
      const res = await create(body);
      assert.equal(res.statusCode, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.body}`);
      assert.equal(res.json().error.code, 'PUBLIC_API_BODY_INVALID');
      if (path) assert.ok(JSON.stringify(res.json().error.details).includes(path), `${path} in ${res.body}`);
    }
  });

  test('rules beyond the schema are a 422 naming field and rule', async () => {
    const pending = (
      await t.inject({
        method: 'POST',
        url: '/v1/media/upload-url',
        key,
        payload: { filename: 'a.png', content_type: 'image/png' },
      })
    ).json().data.media_id;
    const other = await t.workspace('test');
    const otherKey = await t.key({ workspaceIds: [other.workspaceId] });
    const theirs = await uploadBytes(t, otherKey, png(), 'image/png');
    await made({ name: 'Taken', slug: 'taken' });
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ name: 'a', timezone: 'Mars/Olympus' }, '/timezone', 'timezone_unknown'],
      [{ name: 'a', slug: 'taken' }, '/slug', 'slug_taken'],
      [{ name: 'a', banned_terms: ['Cheap', 'cheap'] }, '/banned_terms/1', 'duplicate'],
      [{ name: 'a', banned_terms: ['ad'], required_terms: ['#ad'] }, '/required_terms', 'banned_term_in_brand'],
      [{ name: 'a', banned_terms: ['free'], signature: 'Free shipping' }, '/signature', 'banned_term_in_brand'],
      [{ name: 'a', logo_media_id: 'med_missing' }, '/logo_media_id', 'media_not_found'],
      [{ name: 'a', logo_media_id: theirs.mediaId }, '/logo_media_id', 'media_not_found'],
      [{ name: 'a', logo_media_id: pending }, '/logo_media_id', 'media_not_usable'],
      [
        { name: 'a', documents: [{ media_id: theirs.mediaId, title: 'x' }] },
        '/documents/0/media_id',
        'media_not_found',
      ],
      [{ name: 'a', rules: { signature: { apply: 'platforms' } } }, '/rules/signature/platforms', 'platforms_required'],
      [{ name: 'a', rules: { cta: { platforms: ['x'] } } }, '/rules/cta/platforms', 'platforms_unused'],
      [
        {
          name: 'a',
          memory: [
            { id: 'mem_a', text: '1' },
            { id: 'mem_a', text: '2' },
          ],
        },
        '/memory/1/id',
        'duplicate',
      ],
    ];
    for (const [body, path, rule] of cases) {
      const res = await create(body);
      assert.equal(res.statusCode, 422, `${JSON.stringify(body)}: ${res.body}`);
      const error = res.json().error;
      assert.equal(error.code, 'PUBLIC_API_VALIDATION_FAILED');
      assert.ok(
        (error.details as Array<{ path: string; rule: string }>).some((d) => d.path === path && d.rule === rule),
        `${path} ${rule} in ${res.body}`,
      );
      assert.ok(!res.body.includes(other.workspaceId));
    }
    // Nothing half-written.
    const { rows } = await t.container.pool.query(`SELECT 1 FROM brands WHERE name = 'a'`);
    assert.equal(rows.length, 0);
  });

  test('POST is idempotent: a retry with the same key answers the first brand, and makes no second', async () => {
    const send = () =>
      t.inject({ method: 'POST', url: '/v1/brands', key, idem: 'brand-once', payload: { name: 'Once only' } });
    const first = await send();
    const again = await send();
    assert.equal(first.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.json().data.id, first.json().data.id);
    const { rows } = await t.container.pool.query(`SELECT 1 FROM brands WHERE name = 'Once only'`);
    assert.equal(rows.length, 1);
    const missing = await t.inject({ method: 'POST', url: '/v1/brands', key, idem: false, payload: { name: 'x' } });
    assert.equal(missing.json().error.code, 'PUBLIC_API_IDEMPOTENCY_REQUIRED');
  });

  test('a second brand with the same name gets a free slug', async () => {
    const one = await made({ name: 'Twin' });
    const two = await made({ name: 'Twin' });
    assert.equal(one.slug, 'twin');
    assert.equal(two.slug, 'twin-2');
  });

  test('concurrent creates of one slug: one brand, the others a 422 slug_taken (never a 500)', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => create({ name: `Racer ${i}`, slug: 'racer' })),
    );
    const statuses = results.map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [201, 422, 422, 422, 422, 422], results.map((r) => r.body).join('\n'));
    for (const res of results.filter((r) => r.statusCode === 422))
      assert.ok(
        res.json().error.details.some((d: { rule: string }) => d.rule === 'slug_taken'),
        res.body,
      );
    const { rows } = await t.container.pool.query(`SELECT 1 FROM brands WHERE slug = 'racer'`);
    assert.equal(rows.length, 1);
  });
});

describe('list', () => {
  test('pages by cursor, oldest first, and a cursor is bound to its list', async () => {
    const ws = await t.workspace('test');
    const k = await t.key({ workspaceIds: [ws.workspaceId] });
    for (let i = 0; i < 4; i++) assert.equal((await create({ name: `Paged ${i}` }, k)).statusCode, 201);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await t.inject({ url: `/v1/brands?limit=2${cursor ? `&cursor=${cursor}` : ''}`, key: k });
      assert.equal(res.statusCode, 200, res.body);
      const data = res.json().data;
      seen.push(...(data.items as Array<{ name: string }>).map((b) => b.name));
      cursor = data.next_cursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, [seen[0], 'Paged 0', 'Paged 1', 'Paged 2', 'Paged 3']);
    const first = (await t.inject({ url: '/v1/brands?limit=1', key: k })).json().data;
    assert.equal(first.items[0].is_default, true, 'the default brand was made with the workspace');
    const limited = await t.key({ workspaceIds: [ws.workspaceId], brandIds: [first.items[0].id] });
    const misuse = await t.inject({ url: `/v1/brands?cursor=${first.next_cursor}`, key: limited });
    assert.equal(misuse.statusCode, 400);
  });
});

describe('PATCH', () => {
  test('a merge patch with the current version bumps it and emits brand.updated with the fields changed', async () => {
    const brand = await made({ name: 'Patchy', voice: { formality: 3, descriptors: ['calm'] } });
    const res = await patch(brand.id, { version: 1, voice: { emoji: 'rich' }, website: 'https://p.example' });
    assert.equal(res.statusCode, 200, res.body);
    const data = res.json().data;
    assert.equal(data.version, 2);
    assert.deepEqual([data.voice.formality, data.voice.emoji, data.voice.descriptors], [3, 'rich', ['calm']]);
    const cleared = (await patch(brand.id, { version: 2, website: null })).json().data;
    assert.equal(cleared.website, null);
    const events = await eventsOf('brand.updated', brand.id);
    assert.deepEqual(
      events.map((e) => [e.version, e.changed]),
      [
        [2, ['voice', 'website']],
        [3, ['website']],
      ],
    );
    // Leaving `apply: platforms` drops the platforms it no longer reads.
    const scoped = (
      await patch(brand.id, { version: 3, rules: { signature: { apply: 'platforms', platforms: ['x'] } } })
    ).json().data;
    assert.deepEqual(scoped.rules.signature, { apply: 'platforms', platforms: ['x'] });
    const always = await patch(brand.id, { version: 4, rules: { signature: { apply: 'always' } } });
    assert.equal(always.statusCode, 200, always.body);
    assert.deepEqual(always.json().data.rules.signature, { apply: 'always', platforms: [] });
    assert.equal(always.json().data.rules.banned_terms.severity, 'warning', 'other rules untouched');
    // Nothing changed: the brand as it is, no new version, no event.
    const same = (await patch(brand.id, { version: 5, name: 'Patchy' })).json().data;
    assert.equal(same.version, 5);
    assert.equal((await eventsOf('brand.updated', brand.id)).length, 4);
  });

  test('a stale version is a 409 PUBLIC_API_VERSION_CONFLICT naming the current one, and changes nothing', async () => {
    const brand = await made({ name: 'Racy' });
    assert.equal((await patch(brand.id, { version: 1, industry: 'A' })).statusCode, 200);
    const stale = await patch(brand.id, { version: 1, industry: 'B' });
    assert.equal(stale.statusCode, 409, stale.body);
    assert.equal(stale.json().error.code, 'PUBLIC_API_VERSION_CONFLICT');
    assert.match(stale.json().error.message, /version 2/);
    const now = (await t.inject({ url: `/v1/brands/${brand.id}`, key })).json().data;
    assert.deepEqual([now.industry, now.version], ['A', 2]);
    assert.equal((await patch(brand.id, {})).statusCode, 400, 'version is required');
  });

  test('two concurrent PATCHes of the same version: one wins, the other gets 409', async () => {
    const brand = await made({ name: 'Contended' });
    const answers = await Promise.all(['one', 'two'].map((industry) => patch(brand.id, { version: 1, industry })));
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 409]);
  });
});

describe('DELETE', () => {
  test('never the default brand; not while posts are scheduled or accounts connected; then gone', async () => {
    const ws = await t.workspace('test');
    const k = await t.key({ workspaceIds: [ws.workspaceId] });
    const def = await t.inject({ method: 'DELETE', url: `/v1/brands/${ws.brandId}`, key: k });
    assert.equal(def.statusCode, 409);
    assert.match(def.json().error.message, /default brand/);

    const brand = (await create({ name: 'Doomed' }, k)).json().data;
    const post = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key: k,
      payload: { brand_id: brand.id, content: 'later', platforms: ['x'] },
    });
    assert.equal(post.statusCode, 201, post.body);
    const postId = post.json().data.post_id;
    // A draft does not hold the brand; a scheduled post does.
    await t.container.pool.query(`UPDATE posts SET status = 'scheduled' WHERE id = $1`, [postId]);
    const held = await t.inject({ method: 'DELETE', url: `/v1/brands/${brand.id}`, key: k });
    assert.equal(held.statusCode, 409);
    assert.match(held.json().error.message, new RegExp(postId));
    await t.container.pool.query(`UPDATE posts SET status = 'cancelled' WHERE id = $1`, [postId]);

    const gone = await t.inject({ method: 'DELETE', url: `/v1/brands/${brand.id}`, key: k });
    assert.equal(gone.statusCode, 200, gone.body);
    assert.deepEqual(gone.json().data, { id: brand.id, object: 'brand', deleted: true });
    assert.equal((await t.inject({ url: `/v1/brands/${brand.id}`, key: k })).statusCode, 404);
    const listed = (await t.inject({ url: '/v1/brands', key: k })).json().data.items as Array<{ id: string }>;
    assert.ok(!listed.some((b) => b.id === brand.id));
    assert.equal((await t.inject({ url: `/v1/posts/${postId}`, key: k })).statusCode, 200, 'its posts stay');
    assert.equal((await eventsOf('brand.deleted', brand.id)).length, 1);
    // Its slug may be used again.
    assert.equal((await create({ name: 'Doomed' }, k)).json().data.slug, 'doomed');
  });

  test('refused while the brand has connected accounts', async () => {
    const ws = await t.workspace('test');
    const k = await t.key({ workspaceIds: [ws.workspaceId] });
    // The sandbox connections of a test workspace belong to its default brand: move one to a new brand.
    const brand = (await create({ name: 'Connected' }, k)).json().data;
    const { rowCount } = await t.container.pool.query(
      `UPDATE connections SET brand_id = $1 WHERE id = (SELECT id FROM connections WHERE workspace_id = $2 LIMIT 1)`,
      [brand.id, ws.workspaceId],
    );
    assert.equal(rowCount, 1);
    const res = await t.inject({ method: 'DELETE', url: `/v1/brands/${brand.id}`, key: k });
    assert.equal(res.statusCode, 409);
    assert.match(res.json().error.message, /disconnect/);
  });
});

describe('access', () => {
  test('a brand-limited key sees, reads and changes only its brands, and cannot create brands', async () => {
    const mine = await made({ name: 'Mine' });
    const notMine = await made({ name: 'Not mine' });
    const limited = await t.key({ brandIds: [mine.id] });
    const items = (await t.inject({ url: '/v1/brands?limit=100', key: limited })).json().data.items as Array<{
      id: string;
    }>;
    assert.deepEqual(
      items.map((b) => b.id),
      [mine.id],
    );
    for (const url of [`/v1/brands/${notMine.id}`, `/v1/brands/${notMine.id}/context`]) {
      const res = await t.inject({ url, key: limited });
      assert.equal(res.statusCode, 404, url);
    }
    assert.equal((await patch(notMine.id, { version: 1, industry: 'x' }, limited)).statusCode, 404);
    assert.equal((await t.inject({ method: 'DELETE', url: `/v1/brands/${notMine.id}`, key: limited })).statusCode, 404);
    assert.equal((await patch(mine.id, { version: 1, industry: 'ok' }, limited)).statusCode, 200);
    const made2 = await create({ name: 'Sneaky' }, limited);
    assert.equal(made2.statusCode, 403);
    assert.equal(made2.json().error.code, 'PUBLIC_API_BRAND_FORBIDDEN');
  });

  test('the x-herald-brand-id header narrows the list to that brand', async () => {
    const one = await made({ name: 'Header brand' });
    const res = await t.inject({ url: '/v1/brands', key, headers: { 'x-herald-brand-id': one.id } });
    assert.deepEqual(
      (res.json().data.items as Array<{ id: string }>).map((b) => b.id),
      [one.id],
    );
  });

  test('brand:read reads but cannot write; brand:write is in `all` and beyond a member role', async () => {
    const reader = await t.key({ scopes: ['brand:read'] });
    assert.equal((await t.inject({ url: '/v1/brands', key: reader })).statusCode, 200);
    const denied = await create({ name: 'Nope' }, reader);
    assert.equal(denied.statusCode, 403);
    assert.match(denied.json().error.message, /brand:write/);
    assert.ok((SCOPES as readonly string[]).includes('brand:write'));
    const { roleAllows } = await import('../src/features/workspaces/roles.ts');
    assert.equal(roleAllows('member', 'brand:write'), false);
    assert.equal(roleAllows('member', 'brand:read'), true);
  });
});

describe('context', () => {
  test('GET /brands/{id}/context answers the compiled context within its bound', async () => {
    const brand = await made({
      name: 'Contextual',
      banned_terms: ['cheap'],
      voice: {
        examples: Array(BRAND_LIMITS.voice.examples.items).fill('e'.repeat(BRAND_LIMITS.voice.examples.length)),
      },
      guidelines_md: 'g '.repeat(BRAND_LIMITS.guidelines_md / 2),
    });
    const res = await t.inject({ url: `/v1/brands/${brand.id}/context`, key: await t.key({ scopes: ['brand:read'] }) });
    assert.equal(res.statusCode, 200, res.body);
    const data = res.json().data;
    assert.equal(data.object, 'brand_context');
    assert.equal(data.brand_id, brand.id);
    assert.equal(data.version, 1);
    assert.equal(data.max_chars, BRAND_CONTEXT_MAX_CHARS);
    assert.ok(data.text.length <= BRAND_CONTEXT_MAX_CHARS);
    assert.match(data.text, /Never use these terms: "cheap"/);
    assert.deepEqual(data.truncated, ['examples', 'guidelines']);
    assert.equal(data.fields.voice.examples.length, BRAND_LIMITS.voice.examples.items, 'fields stay whole');
  });
});
