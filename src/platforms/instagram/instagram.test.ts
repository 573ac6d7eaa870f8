// The instagram adapter against its simulator: the shared contract, then Instagram's own behaviour over real
// HTTP — carousels, the first comment and comments, media it cannot fetch, a block whose post is live anyway, quota.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { adapterContract } from '../../../test/helpers/adapter-contract.ts';
import { metricsContract } from '../../../test/helpers/metrics-contract.ts';
import { failure } from '../../../test/helpers/meta-adapter.ts';
import { brokenUrl, jpeg, mediaSource, mp4, png, servedUrl } from '../../../test/helpers/media-sources.ts';
import type { PreparedMedia } from '../types.ts';
import { rig, type Rig } from './instagram.fixture.ts';

adapterContract('instagram');
metricsContract('instagram', {
  gives: ['impressions', 'reach', 'likes', 'comments', 'shares', 'saves'],
  operation: 'read_metrics',
});

describe('instagram specifics', () => {
  let r: Rig;
  before(async () => {
    r = await rig({ instagramPublishQuota: 6 });
  });
  after(() => r.sandbox.close());

  test('a carousel of images and a video is made from child containers, published as one post', async () => {
    const media = await r.adapter.prepareMedia(
      r.session,
      [
        mediaSource(jpeg(40, 40), 'image/jpeg', { width: 40, height: 40, altText: 'first' }),
        mediaSource(jpeg(40, 50), 'image/jpeg', { width: 40, height: 50 }),
        mediaSource(mp4(), 'video/mp4'),
      ],
      {},
    );
    const post = await r.adapter.publish(r.session, r.part(`carousel ${Date.now()}`, media));
    assert.equal((await r.held()).find((p) => p.id === post.id)?.media, 3);
    assert.match(post.url, /\/web\/p\/[A-Za-z0-9_-]+\/$/);
  });

  test('a first comment is a comment on the new post, found again by its text after an unknown outcome', async () => {
    const post = await r.adapter.publish(r.session, r.part(`with comment ${Date.now()}`, await r.image()));
    const comment = r.part('More in the link in bio #herald', []);
    const made = await r.adapter.ownComments!.create(r.session, post, comment);
    assert.equal(made.url, post.url);
    const res = await r.session.http.request({
      method: 'GET',
      path: `/v23.0/${post.id}/comments`,
      query: { fields: 'id,text', access_token: r.session.credentials.accessToken },
    });
    assert.deepEqual(res.json<{ data: Array<{ id: string; text: string }> }>().data, [
      { id: made.id, text: 'More in the link in bio #herald' },
    ]);
    assert.deepEqual(await r.adapter.ownComments!.find(r.session, post, comment), made);
    const held = { ...comment, heldElsewhere: new Set([made.id]) };
    assert.equal(await r.adapter.ownComments!.find(r.session, post, held), null, 'a comment another part holds');
    const other = r.part('Another text', []);
    assert.equal(await r.adapter.ownComments!.find(r.session, post, other), null, 'another text');
  });

  test('comments are listed, and a reply is a comment on the post', async () => {
    const post = await r.adapter.publish(r.session, r.part(`commented ${Date.now()}`, await r.image()));
    await r.adapter.ownComments!.create(r.session, post, r.part('one', []));
    const answer = await r.adapter.reply!(r.session, post, 'two');
    assert.equal(answer.url, post.url);
    const list = await r.adapter.listComments!(r.session, post);
    assert.deepEqual(
      list.map((c) => [c.text, c.authorHandle]),
      [
        ['one', r.session.connection.handle],
        ['two', r.session.connection.handle],
      ],
    );
    assert.ok(list.every((c) => !Number.isNaN(Date.parse(c.createdAt))));
    const metrics = await r.adapter.fetchMetrics!(r.session, post);
    assert.equal(metrics.comments, 2);
    assert.equal(metrics.likes, 0);
  });

  test('an image URL Instagram cannot fetch fails the container as 2207052, a transient failure', async () => {
    const media: PreparedMedia[] = [
      { platformRef: await brokenUrl(), kind: 'image', altText: null, width: 40, height: 40 },
    ];
    const error = await failure(r.adapter.publish(r.session, r.part(`broken ${Date.now()}`, media)));
    assert.equal(error.kind, 'transient');
    assert.match(error.platformBody ?? '', /2207052/);
  });

  test('a video URL Instagram cannot fetch ends the container in ERROR, also transient', async () => {
    const media: PreparedMedia[] = [
      { platformRef: await brokenUrl(), kind: 'video', altText: null, width: null, height: null },
    ];
    const error = await failure(r.adapter.publish(r.session, r.part(`broken video ${Date.now()}`, media)));
    assert.equal(error.kind, 'transient');
    assert.match(error.message, /could not fetch/);
  });

  test('a PNG is refused as Instagram refuses it (JPEG only)', async () => {
    const media: PreparedMedia[] = [
      {
        platformRef: await servedUrl(`png-${Date.now()}`, png(), 'image/png'),
        kind: 'image',
        altText: null,
        width: 1,
        height: 1,
      },
    ];
    const error = await failure(r.adapter.publish(r.session, r.part(`png ${Date.now()}`, media)));
    assert.equal(error.code, 'PLATFORM_MEDIA_REJECTED');
  });

  test('"blocked your request" while the post went live is an unknown outcome, reconciled without a duplicate', async () => {
    r.sandbox.simulator('instagram').faults.add({ fault: 'published_but_blocked', operation: 'create_post' });
    const part = r.part(`blocked but live ${Date.now()}`, await r.image());
    const error = await failure(r.adapter.publish(r.session, part));
    assert.equal(error.kind, 'unknown_outcome');
    const found = await r.adapter.findPublished(r.session, part);
    const held = (await r.held()).filter((p) => p.text === part.text);
    assert.equal(held.length, 1);
    assert.equal(found?.id, held[0]!.id);
  });

  test('a re-send after a lost answer publishes nothing twice (the container remembers)', async () => {
    r.sandbox.simulator('instagram').faults.add({ fault: 'lost_response', operation: 'create_post' });
    const part = r.part(`lost then resent ${Date.now()}`, await r.image());
    assert.equal((await failure(r.adapter.publish(r.session, part))).kind, 'unknown_outcome');
    const again = await r.adapter.publish(r.session, part);
    const held = (await r.held()).filter((p) => p.text === part.text);
    assert.equal(held.length, 1);
    assert.equal(again.id, held[0]!.id);
  });

  test('bad requests get the Graph error envelope, never a 500', async () => {
    const call = async (method: 'GET' | 'POST', path: string, params: Record<string, string> = {}) => {
      const res = await r.session.http.request(
        method === 'GET'
          ? { method, path, query: { ...params, access_token: r.session.credentials.accessToken } }
          : { method, path, form: { ...params, access_token: r.session.credentials.accessToken } },
      );
      assert.ok(res.status >= 400 && res.status < 500, `${path}: ${res.status}`);
      const body = res.json<{ error: { code: number; fbtrace_id: string; message: string } }>();
      assert.ok(body.error.fbtrace_id && body.error.message);
      return body.error.code;
    };
    const me = r.session.connection.accountId;
    assert.equal(await call('GET', '/v99/me'), 2500);
    assert.equal(await call('POST', `/v23.0/${me}/media`, { media_type: 'HOLOGRAM' }), 100);
    assert.equal(
      await call('POST', `/v23.0/${me}/media`, { media_type: 'VIDEO', video_url: 'http://127.0.0.1:1/v.mp4' }),
      100,
    );
    assert.equal(await call('POST', `/v23.0/${me}/media`, { media_type: 'CAROUSEL', children: '1' }), 100);
    assert.equal(await call('POST', `/v23.0/${me}/media`, { image_url: 'not a url' }), 9004);
    assert.equal(await call('POST', `/v23.0/${me}/media_publish`), 100);
    assert.equal(await call('POST', `/v23.0/${me}/media_publish`, { creation_id: '42' }), 100);
    assert.equal(await call('POST', '/v23.0/17841400000000001/media', { image_url: 'http://x' }), 100);
    assert.equal(await call('GET', '/v23.0/nothing-here'), 100);
    const anonymous = await r.session.http.request({ method: 'GET', path: '/v23.0/me' });
    assert.equal(anonymous.json<{ error: { code: number } }>().error.code, 104);
    const forged = await r.session.http.request({
      method: 'GET',
      path: '/v23.0/me',
      query: { access_token: 'forged' },
    });
    assert.equal(forged.json<{ error: { code: number } }>().error.code, 190);
  });

  test('past the 24-hour publishing quota the target fails PLATFORM_QUOTA_EXHAUSTED, nothing published', async () => {
    // The quota of this rig is 6; earlier tests used some of it.
    for (;;) {
      const limit = await r.session.http.request({
        method: 'GET',
        path: `/v23.0/${r.session.connection.accountId}/content_publishing_limit`,
        query: { fields: 'quota_usage,config', access_token: r.session.credentials.accessToken },
      });
      const entry = limit.json<{ data: Array<{ quota_usage: number; config: { quota_total: number } }> }>().data[0]!;
      if (entry.quota_usage >= entry.config.quota_total) break;
      await r.adapter.publish(r.session, r.part(`filler ${entry.quota_usage} ${Date.now()}`, await r.image()));
    }
    const text = `over quota ${Date.now()}`;
    const error = await failure(r.adapter.publish(r.session, r.part(text, await r.image())));
    assert.equal(error.code, 'PLATFORM_QUOTA_EXHAUSTED');
    assert.equal((await r.held()).filter((p) => p.text === text).length, 0);
  });
});
