// The Google Business Profile adapter against its simulator, beyond the shared contract: event and offer posts with a
// photo and a call to action, review followed to LIVE or REJECTED, unknown outcomes at each step of a publish (the
// create, the review polls) reconciled by the look-up without a second post (following a post in review to its end), the locations a consent covers, and
// tokens that refresh without rotating.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rejects, withAdapter } from '../../../test/helpers/adapter-contract.ts';
import { mediaSource, png } from '../../../test/helpers/media-sources.ts';
import type { PlatformSession } from '../types.ts';
import * as client from './client.ts';

withAdapter('googlebusiness', (get) => {
  const dates = { start: '2026-12-01T18:00', end: '2026-12-01T22:00' };

  test('an EVENT post with a photo and a BOOK button goes LIVE with its event, and its page shows it', async () => {
    const c = get();
    const media = await c.adapter.prepareMedia(c.session, [mediaSource(png(40, 30), 'image/png')], {});
    const text = `Wine tasting ${Date.now()}`;
    const post = await c.adapter.publish(
      c.session,
      c.part(text, {
        media,
        options: {
          topic_type: 'EVENT',
          event: { title: 'Tasting night', ...dates },
          call_to_action: { action_type: 'BOOK', url: 'https://example.com/book' },
        },
      }),
    );
    assert.match(post.id, /^accounts\/\d+\/locations\/\d+\/localPosts\/\d+$/);
    const read = await client.getLocalPost(c.session.http, c.session.credentials.accessToken, post.id);
    assert.equal(read.state, 'LIVE');
    assert.equal(read.topicType, 'EVENT');
    assert.equal(read.media?.length, 1);
    const page = await (await fetch(post.url)).text();
    assert.ok(page.includes(text) && page.includes('Tasting night') && page.includes('[BOOK]'));
  });

  test('an OFFER post carries its coupon and terms', async () => {
    const c = get();
    const post = await c.adapter.publish(
      c.session,
      c.part(`Ten percent off ${Date.now()}`, {
        options: {
          topic_type: 'OFFER',
          event: { title: 'Winter sale', start: '2026-12-01', end: '2026-12-24' },
          offer: { coupon_code: 'TEN', terms: 'One per visit.' },
        },
      }),
    );
    const read = (await client.getLocalPost(c.session.http, c.session.credentials.accessToken, post.id)) as unknown as {
      offer?: unknown;
    };
    assert.deepEqual(read.offer, { couponCode: 'TEN', termsConditions: 'One per visit.' });
  });

  test('a post Google rejects in review is refused as content, and nothing of it stays', async () => {
    const c = get();
    const text = `Call us at +1 555-123-4567 ${Date.now()}`;
    await rejects(c.adapter.publish(c.session, c.part(text)), 'invalid_content', 'PLATFORM_CONTENT_REJECTED');
    assert.equal((await c.held()).filter((p) => p.text === text).length, 0);
  });

  test('a review poll that fails is an unknown outcome; the look-up finds the one post, which goes LIVE', async () => {
    const c = get();
    const part = c.part(`review poll fails ${Date.now()}`);
    c.fault({ fault: 'server_error', operation: 'post_status' });
    await rejects(c.adapter.publish(c.session, part), 'unknown_outcome', 'PLATFORM_UNKNOWN_OUTCOME');
    const found = await c.adapter.findPublished(c.session, part);
    const held = (await c.held()).filter((p) => p.text === part.text);
    assert.equal(held.length, 1, 'one post, never a second');
    assert.equal(found?.id, held[0]!.id);
  });

  test('a review poll that hangs (a worker killed mid-review) is reconciled the same way', async () => {
    const c = get();
    const part = c.part(`review poll hangs ${Date.now()}`);
    c.fault({ fault: 'hang', operation: 'post_status' });
    await rejects(c.adapter.publish(c.session, part), 'unknown_outcome');
    assert.equal(
      (await c.adapter.findPublished(c.session, part))?.id,
      (await c.held()).find((p) => p.text === part.text)?.id,
    );
  });

  test('a look-up that finds the post in review follows it; a rejected one answers the refusal, not a second send', async () => {
    const c = get();
    const part = c.part(`lost create ${Date.now()}`);
    c.fault({ fault: 'lost_response', operation: 'create_post' });
    await rejects(c.adapter.publish(c.session, part), 'unknown_outcome');
    const found = await c.adapter.findPublished(c.session, part);
    const read = await client.getLocalPost(c.session.http, c.session.credentials.accessToken, found!.id);
    assert.equal(read.state, 'LIVE', 'adopted only once Google has reviewed it');

    const bad = c.part(`Call us at +1 555-987-6543 ${Date.now()}`);
    c.fault({ fault: 'lost_response', operation: 'create_post' });
    await rejects(c.adapter.publish(c.session, bad), 'unknown_outcome');
    await rejects(c.adapter.findPublished(c.session, bad), 'invalid_content', 'PLATFORM_CONTENT_REJECTED');
    assert.equal((await c.held()).filter((p) => p.text === bad.text).length, 1, 'one post, never a second');
  });

  test('the look-up takes only a post of the same topic, photo count and not held by another part', async () => {
    const c = get();
    const part = c.part(`look-up rules ${Date.now()}`);
    const post = await c.adapter.publish(c.session, part);
    assert.equal((await c.adapter.findPublished(c.session, part))?.id, post.id);
    assert.equal(await c.adapter.findPublished(c.session, { ...part, heldElsewhere: new Set([post.id]) }), null);
    assert.equal(
      await c.adapter.findPublished(c.session, {
        ...part,
        options: { topic_type: 'EVENT', event: { title: 'x', ...dates } },
      }),
      null,
    );
    assert.equal(await c.adapter.findPublished(c.session, { ...part, mediaCount: 1 }), null);
    assert.equal(
      await c.adapter.findPublished(c.session, { ...part, firstSentAt: new Date(Date.now() + 60_000) }),
      null,
      'a post made before the part was sent is not its',
    );
  });

  test('a delete removes the post', async () => {
    const c = get();
    const post = await c.adapter.publish(c.session, c.part(`to delete ${Date.now()}`));
    await c.adapter.deletePost(c.session, post);
    assert.equal(
      (await c.held()).some((p) => p.id === post.id),
      false,
    );
    assert.equal((await fetch(post.url)).status, 404);
  });

  test('a consent lists every location; a connection publishes to the one it chose', async () => {
    const c = get();
    const ctx = {
      http: c.session.http,
      webUrl: c.session.http.baseUrl,
      sandbox: true,
      app: { clientId: 'herald-sandbox', clientSecret: null },
      redirectUri: 'http://127.0.0.1/herald/oauth/callback',
    };
    const accounts = await c.adapter.oauth!.accounts(ctx, c.session.credentials);
    assert.equal(accounts.length, 2);
    assert.equal(accounts[0]!.account.accountId, c.session.connection.accountId);
    const second = accounts[1]!.account;
    assert.match(second.accountId, /^accounts\/\d+\/locations\/\d+$/);
    assert.deepEqual(Object.keys(second.settings ?? {}).sort(), ['account', 'location', 'location_title']);
    const session: PlatformSession = {
      ...c.session,
      connection: { ...c.session.connection, accountId: second.accountId, settings: second.settings ?? {} },
    };
    assert.equal((await c.adapter.verifyAccount(session)).accountId, second.accountId);
    const post = await c.adapter.publish(session, c.part(`on the second location ${Date.now()}`));
    assert.ok(post.id.startsWith(`${second.accountId}/localPosts/`));
  });

  test('a refresh gives a new access token and keeps the refresh token; a revoked one means reconnect', async () => {
    const c = get();
    const fresh = await c.adapter.refreshCredentials(c.session);
    assert.notEqual(fresh.accessToken, c.session.credentials.accessToken);
    assert.equal(fresh.refreshToken, c.session.credentials.refreshToken, 'Google refresh tokens do not rotate');
    assert.ok(fresh.expiresAt && Date.parse(fresh.expiresAt) > Date.now() + 55 * 60_000);
    const account = await c.adapter.verifyAccount({ ...c.session, credentials: fresh });
    assert.equal(account.accountId, c.session.connection.accountId);
    await client.revoke(c.session.http, true, fresh.refreshToken!);
    await rejects(
      c.adapter.refreshCredentials({ ...c.session, credentials: fresh }),
      'auth_expired',
      'PLATFORM_RECONNECT_REQUIRED',
    );
  });
});
