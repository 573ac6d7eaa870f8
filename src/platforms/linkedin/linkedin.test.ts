// The LinkedIn adapter against its simulator over real HTTP: the shared contract, then publishing text —
// little-text escaping, the configured LinkedIn-Version, duplicates, organization authors and the daily limit.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { adapterContract, rejects } from '../../../test/helpers/adapter-contract.ts';
import { metricsContract } from '../../../test/helpers/metrics-contract.ts';
import { mediaSource, png } from '../../../test/helpers/media-sources.ts';
import { createPlatformRegistry } from '../registry.ts';
import { readLittleText } from '../../sandbox/linkedin/posts.ts';
import { escapeLittleText } from './map.ts';
import { currentVersion, rig, SPECIFICS_SETTINGS, type Rig } from './linkedin.fixture.ts';

adapterContract('linkedin');
// A member's own post: member post analytics (no clicks); an organization's post is tested below.
metricsContract('linkedin', {
  gives: ['impressions', 'reach', 'likes', 'comments', 'shares'],
  operation: 'read_metrics',
});

describe('LinkedIn commentary is little text', () => {
  test('every reserved character is escaped, and the simulator reads the escaped text back as written', () => {
    const text = 'a\\b|c{d}e@f[g]h(i)j<k>l#m*n_o~p';
    assert.equal(escapeLittleText(text), 'a\\\\b\\|c\\{d\\}e\\@f\\[g\\]h\\(i\\)j\\<k\\>l\\#m\\*n\\_o\\~p');
    assert.deepEqual(readLittleText(escapeLittleText(text)), { plain: text, truncated: false });
  });

  test('unescaped reserved characters cut the post short, as LinkedIn silently does; hashtags and mentions survive', () => {
    assert.deepEqual(readLittleText('Launch (beta) today'), { plain: 'Launch ', truncated: true });
    assert.deepEqual(readLittleText('Hi @[Acme](urn:li:organization:123) #launch'), {
      plain: 'Hi Acme #launch',
      truncated: false,
    });
  });
});

describe('LinkedIn adapter specifics', () => {
  let r: Rig;
  before(async () => {
    r = await rig(SPECIFICS_SETTINGS);
  });
  after(() => r.sandbox.close());
  const held = async () => await r.sandbox.simulator('linkedin').posts();

  test('text full of reserved characters is published whole: the id is the x-restli-id URN', async () => {
    const text = `Q&A (part 1) — see [docs] <here> #not_a_tag *bold* ~x~ a|b {c} \\ @someone ${Date.now()}`;
    const post = await r.adapter.publish(r.session, r.part(text));
    assert.match(post.id, /^urn:li:share:\d+$/);
    assert.equal(post.url, `${r.http.baseUrl}/web/feed/update/${post.id}`);
    const copy = (await held()).find((p) => p.id === post.id)!;
    assert.equal(copy.text, text);
    assert.equal(copy.account, r.session.connection.accountId);
    // Every post gets its own 19-digit id, and the author finder lists them newest first.
    const next = await r.adapter.publish(r.session, r.part(`next ${Date.now()}`));
    assert.notEqual(next.id, post.id);
    const listed = (
      await r.rest('GET', '/rest/posts', { query: { q: 'author', author: r.session.connection.accountId, count: '2' } })
    ).json<{ elements: Array<{ id: string }> }>();
    assert.deepEqual(
      listed.elements.map((e) => e.id),
      [next.id, post.id],
    );
  });

  test('the raw API: missing version is 400 VERSION_MISSING, a retired one 426 NONEXISTENT_VERSION, Rest.li 2.0 is required', async () => {
    const missing = await r.http.request({
      method: 'GET',
      path: '/rest/posts',
      bearer: r.session.credentials.accessToken,
      query: { q: 'author', author: r.session.connection.accountId },
      headers: { 'x-restli-protocol-version': '2.0.0' },
    });
    assert.equal(missing.status, 400);
    assert.equal(missing.json().code, 'VERSION_MISSING');
    const retired = await r.rest('GET', '/rest/posts', {
      query: { q: 'author', author: r.session.connection.accountId },
      headers: { 'linkedin-version': '202301' },
    });
    assert.equal(retired.status, 426);
    assert.deepEqual(retired.json(), {
      status: 426,
      code: 'NONEXISTENT_VERSION',
      message: 'Requested version 202301 is not active',
    });
    const noRestli = await r.http.request({
      method: 'GET',
      path: '/rest/posts',
      bearer: r.session.credentials.accessToken,
      query: { q: 'author', author: r.session.connection.accountId },
      headers: { 'linkedin-version': currentVersion() },
    });
    assert.equal(noRestli.status, 400);
  });

  test('an adapter configured with a retired version fails with PLATFORM_API_VERSION_RETIRED, not a generic failure', async () => {
    const old = createPlatformRegistry({ linkedin: { apiVersion: '202301' } }).get('linkedin')!;
    const error = await rejects(
      old.publish(r.session, r.part(`old version ${Date.now()}`)),
      'permanent',
      'PLATFORM_API_VERSION_RETIRED',
    );
    assert.equal(error.platformStatus, 426);
    await rejects(
      old.prepareMedia(r.session, [mediaSource(png(), 'image/png')], {}),
      'permanent',
      'PLATFORM_API_VERSION_RETIRED',
    );
    // A version from the future does not exist yet either.
    const future = createPlatformRegistry({ linkedin: { apiVersion: `${new Date().getUTCFullYear() + 1}01` } }).get(
      'linkedin',
    )!;
    await rejects(
      future.publish(r.session, r.part(`future version ${Date.now()}`)),
      'permanent',
      'PLATFORM_API_VERSION_RETIRED',
    );
  });

  test('the same commentary twice is PLATFORM_DUPLICATE; a re-send after a lost answer takes the earlier post', async () => {
    const text = `duplicate ${Date.now()}`;
    await r.adapter.publish(r.session, r.part(text));
    await rejects(
      r.adapter.publish(r.session, r.part(text, { firstSentAt: new Date(Date.now() + 5 * 60_000) })),
      'invalid_content',
      'PLATFORM_DUPLICATE',
    );
    const part = r.part(`lost then resent ${Date.now()}`);
    r.sandbox.simulator('linkedin').faults.add({ fault: 'lost_response', operation: 'create_post' });
    await rejects(r.adapter.publish(r.session, part), 'unknown_outcome');
    const again = await r.adapter.publish(r.session, part);
    const copies = (await held()).filter((p) => p.text === part.text);
    assert.equal(copies.length, 1);
    assert.equal(again.id, copies[0]!.id);
  });

  test("the duplicate fault is LinkedIn's 422 DUPLICATE_POST; a failed status read while processing is transient", async () => {
    const sim = r.sandbox.simulator('linkedin');
    sim.faults.add({ fault: 'duplicate', operation: 'create_post' });
    const error = await rejects(
      r.adapter.publish(r.session, r.part(`flagged as duplicate ${Date.now()}`)),
      'invalid_content',
      'PLATFORM_DUPLICATE',
    );
    assert.equal(error.platformStatus, 422);
    sim.faults.add({ fault: 'server_error', operation: 'media_status' });
    await rejects(
      r.adapter.prepareMedia(r.session, [mediaSource(png(), 'image/png')], {}),
      'transient',
      'PLATFORM_UNAVAILABLE',
    );
  });

  test('an organization the member administers can be the author; another one is PLATFORM_PERMISSION_DENIED', async () => {
    const accounts = await r.adapter.oauth!.accounts(
      {
        http: r.http,
        webUrl: r.http.baseUrl,
        sandbox: true,
        app: { clientId: 'herald-sandbox', clientSecret: 'herald-sandbox-secret' },
        redirectUri: 'http://127.0.0.1/cb',
      },
      r.session.credentials,
    );
    assert.equal(accounts.length, 2);
    assert.equal(accounts[0]!.account.accountId, r.session.connection.accountId);
    const org = accounts[1]!.account;
    assert.match(org.accountId, /^urn:li:organization:\d+$/);
    const options = { organization: org.accountId };
    const media = await r.adapter.prepareMedia(r.session, [mediaSource(png(4, 3), 'image/png')], options);
    const post = await r.adapter.publish(r.session, r.part(`from the page ${Date.now()}`, { media, options }));
    assert.equal((await held()).find((p) => p.id === post.id)?.account, org.accountId);
    // A connection of the page itself verifies as the page and publishes as it.
    const pageSession = {
      ...r.session,
      connection: { ...r.session.connection, accountId: org.accountId, handle: org.handle },
    };
    assert.deepEqual(await r.adapter.verifyAccount(pageSession), org);
    const pagePost = await r.adapter.publish(pageSession, r.part(`page connection ${Date.now()}`));
    assert.equal((await held()).find((p) => p.id === pagePost.id)?.account, org.accountId);
    // The page's post has organization share statistics: clicks too, all at once.
    assert.deepEqual(Object.keys(await r.adapter.fetchMetrics!(r.session, post)).sort(), [
      'clicks',
      'comments',
      'impressions',
      'likes',
      'reach',
      'shares',
    ]);
    await rejects(
      r.adapter.publish(
        r.session,
        r.part(`not mine ${Date.now()}`, { options: { organization: 'urn:li:organization:1' } }),
      ),
      'permanent',
      'PLATFORM_PERMISSION_DENIED',
    );
  });
});

describe('LinkedIn daily limit', () => {
  test('past the daily post limit the answer is 429 without headers: rate_limited until midnight UTC', async () => {
    const r = await rig({}, { rateLimitFactor: 0.001 });
    try {
      await r.adapter.publish(r.session, r.part(`first of the day ${Date.now()}`));
      const error = await rejects(
        r.adapter.publish(r.session, r.part(`second of the day ${Date.now()}`)),
        'rate_limited',
        'PLATFORM_RATE_LIMITED',
      );
      const midnight = new Date();
      midnight.setUTCHours(24, 0, 0, 0);
      assert.ok(
        Math.abs(Date.now() + error.retryAfterMs! - midnight.getTime()) < 5000,
        `retry at midnight UTC, got +${error.retryAfterMs} ms`,
      );
    } finally {
      await r.sandbox.close();
    }
  });
});
