// Brand rules on posts without any model (docs/api.md "Brand rules on posts"): banned terms as warnings or 422
// errors, required terms, signature, CTA and default hashtags applied where the brand asks, counted in each
// platform's limits, shown by validate, fixed on the post, and published exactly as validate showed them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './helpers/app.ts';
import { PUBLISHING_ENV, publishingRequests } from './helpers/publishing.ts';

let sandbox: RunningSandbox;
let t: TestApp;
let key: string;

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildTestApp({ sandboxUrl: sandbox.url, worker: true, env: PUBLISHING_ENV });
  key = await t.key();
});
after(async () => {
  await t.close();
  await sandbox.close();
});

const requests = publishingRequests(() => ({ t, key, sandbox }));

/** Replaces the default brand's rule fields (a PATCH with its current version). */
async function setBrand(fields: Record<string, unknown>): Promise<void> {
  const current = (await t.inject({ url: `/v1/brands/${t.owner.brandId}`, key })).json().data;
  const res = await t.inject({
    method: 'PATCH',
    url: `/v1/brands/${t.owner.brandId}`,
    key,
    payload: {
      version: current.version,
      banned_terms: [],
      required_terms: [],
      default_hashtags: [],
      signature: null,
      cta_default: null,
      ...fields,
    },
  });
  assert.equal(res.statusCode, 200, res.body);
}

async function validate(body: Record<string, unknown>) {
  const res = await t.inject({ method: 'POST', url: '/v1/posts/validate', key, payload: body });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as {
    valid: boolean;
    issues: Array<{ platform: string | null; rule: string; message: string; path: string }>;
    warnings: Array<{ platform: string | null; rule: string; message: string; path: string }>;
    applied: Array<{ platform: string; additions: Array<{ rule: string; text: string }>; text: string }>;
  };
}

describe('banned terms', () => {
  test('warnings by default: validate lists them and the post is created, with them', async () => {
    await setBrand({ banned_terms: ['cheap'] });
    const body = { content: 'Cheap flights!', platforms: ['x', 'bluesky'] };
    const checked = await validate(body);
    assert.equal(checked.valid, true);
    assert.deepEqual(
      checked.warnings.map((w) => [w.platform, w.rule, w.path]),
      [
        ['x', 'banned_term', '/content'],
        ['bluesky', 'banned_term', '/content'],
      ],
    );
    const res = await t.inject({ method: 'POST', url: '/v1/posts', key, payload: body });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().data.warnings.length, 2);
  });

  test('errors when the brand says so: 422 naming the term and the target, nothing written', async () => {
    await setBrand({ banned_terms: ['cheap'], rules: { banned_terms: { severity: 'error' } } });
    const before = (await t.container.pool.query('SELECT count(*)::int AS n FROM posts')).rows[0].n;
    const res = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: {
        content: 'Good coffee',
        platforms: ['x', 'mastodon'],
        platform_options: { mastodon: { content: 'So CHEAP' } },
      },
    });
    assert.equal(res.statusCode, 422, res.body);
    const error = res.json().error;
    assert.equal(error.code, 'PUBLIC_API_VALIDATION_FAILED');
    assert.deepEqual(error.details, [
      {
        platform: 'mastodon',
        rule: 'banned_term',
        message: 'The brand bans the term "cheap"; the mastodon text at /platform_options/mastodon/content uses it.',
        path: '/platform_options/mastodon/content',
      },
    ]);
    assert.equal((await t.container.pool.query('SELECT count(*)::int AS n FROM posts')).rows[0].n, before);
    assert.equal((await validate({ content: 'cheap', platforms: ['x'] })).valid, false);
    await setBrand({ rules: { banned_terms: { severity: 'warning' } } });
  });
});

describe('additions', () => {
  test('validate shows, per platform, what is added and the exact text; the post fixes it', async () => {
    await setBrand({
      signature: '— Acme',
      default_hashtags: ['#acme'],
      required_terms: ['#ad'],
      rules: {
        signature: { apply: 'platforms', platforms: ['mastodon'] },
        default_hashtags: { apply: 'always', platforms: [] },
        required_terms: { when_missing: 'append' },
      },
    });
    const body = { content: 'New roast is out', platforms: ['x', 'mastodon'] };
    const checked = await validate(body);
    assert.deepEqual(checked.applied, [
      {
        platform: 'x',
        additions: [
          { rule: 'required_terms', text: '#ad' },
          { rule: 'default_hashtags', text: '#acme' },
        ],
        text: 'New roast is out\n\n#ad\n#acme',
      },
      {
        platform: 'mastodon',
        additions: [
          { rule: 'required_terms', text: '#ad' },
          { rule: 'signature', text: '— Acme' },
          { rule: 'default_hashtags', text: '#acme' },
        ],
        text: 'New roast is out\n\n#ad\n— Acme\n#acme',
      },
    ]);
    const created = await t.inject({ method: 'POST', url: '/v1/posts', key, payload: body });
    const post = created.json().data.post;
    assert.equal(post.content, 'New roast is out', 'the author’s text is kept as written');
    assert.equal(post.brand_additions.mastodon.suffix, '\n\n#ad\n— Acme\n#acme');

    // A later change of the brand does not change what this post will publish; an edit applies the brand anew.
    await setBrand({ signature: '— Acme Roasters', rules: { signature: { apply: 'always', platforms: [] } } });
    const again = (await t.inject({ url: `/v1/posts/${post.id}`, key })).json().data;
    assert.deepEqual(again.brand_additions, post.brand_additions);
    const edited = await t.inject({
      method: 'PATCH',
      url: `/v1/posts/${post.id}`,
      key,
      payload: { content: 'Edited' },
    });
    assert.equal(edited.statusCode, 200, edited.body);
    assert.equal(edited.json().data.brand_additions.x.suffix, '\n\n— Acme Roasters');
  });

  test('are counted in each platform’s limits: the text fits alone and not with the signature', async () => {
    await setBrand({ signature: '— The Acme team', rules: { signature: { apply: 'platforms', platforms: ['x'] } } });
    const content = 'y'.repeat(275);
    const checked = await validate({ content, platforms: ['x', 'bluesky'] });
    assert.equal(checked.valid, false);
    assert.deepEqual(
      checked.issues.map((i) => [i.platform, i.path]),
      [['x', '/content']],
    );
    assert.match(checked.issues[0]!.message, /with the brand's signature/);
    const res = await t.inject({ method: 'POST', url: '/v1/posts', key, payload: { content, platforms: ['x'] } });
    assert.equal(res.statusCode, 422);
    await setBrand({ rules: { signature: { apply: 'never', platforms: [] } } });
    assert.equal((await validate({ content, platforms: ['x'] })).valid, true);
    // The default hashtags count the same way: 275 + a blank line + `#acme` is over X's 280.
    await setBrand({ default_hashtags: ['#acme'], rules: { default_hashtags: { apply: 'always', platforms: [] } } });
    const tagged = await validate({ content, platforms: ['x', 'bluesky'] });
    assert.deepEqual(
      tagged.issues.map((i) => [i.platform, i.path]),
      [['x', '/content']],
    );
    assert.match(tagged.issues[0]!.message, /with the brand's default_hashtags/);
    await setBrand({ rules: { default_hashtags: { apply: 'never', platforms: [] } } });
    assert.equal((await validate({ content, platforms: ['x'] })).valid, true);
  });

  test('what validate showed is exactly what is published', async () => {
    await setBrand({
      cta_default: 'Order at acme.example',
      default_hashtags: ['#acme', '#coffee'],
      rules: { cta: { apply: 'always', platforms: [] }, default_hashtags: { apply: 'always', platforms: [] } },
    });
    const body = { content: `Single origin ${Date.now()} #coffee`, platforms: ['x', 'bluesky'] };
    const shown = await validate(body);
    const post = await requests.create({ ...body, publish_now: true });
    const done = await requests.settled(post.id, 'branded post published');
    assert.equal(done.status, 'published', JSON.stringify(done.targets.map((x) => x.error)));
    for (const { platform, text } of shown.applied) {
      assert.match(text, /Order at acme\.example\n#acme$/);
      assert.equal((await requests.held(platform as 'x', text)).length, 1, `${platform} holds: ${text}`);
    }
  });
});
