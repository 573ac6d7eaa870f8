// Media on posts: `media_ids` must exist in the workspace, be ready and fit every target platform; the post
// lists its media in order with their public fields.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildMediaTestApp, requestUpload, uploadBytes, type MediaTestApp } from './helpers/media.ts';
import { gif, jpeg, mp4, png } from './helpers/media-fixtures.ts';

let t: MediaTestApp;
let key: string;

before(async () => {
  t = await buildMediaTestApp();
  key = await t.key();
});
after(() => t.close());

async function ready(bytes: Buffer, contentType: string): Promise<string> {
  const { mediaId, put } = await uploadBytes(t, key, bytes, contentType);
  assert.equal(put.json().data.status, 'ready', put.body.toString());
  return mediaId;
}

const create = (body: Record<string, unknown>) => t.inject({ method: 'POST', url: '/v1/posts', key, payload: body });
const details = (res: {
  json(): { error: { details: Array<{ platform: string | null; rule: string; path: string }> } };
}) =>
  res
    .json()
    .error.details.map((d) => `${d.platform}:${d.rule}:${d.path}`)
    .sort();

describe('POST /v1/posts with media_ids', () => {
  test('the post lists its media in order with their public fields, right after the PUT answered', async () => {
    const first = await ready(jpeg(40, 30), 'image/jpeg');
    const second = await ready(png(8, 6), 'image/png');
    const res = await create({ content: 'two pictures', platforms: ['x', 'bluesky'], media_ids: [second, first] });
    assert.equal(res.statusCode, 201, res.body);
    const media = res.json().data.post.media;
    assert.deepEqual(
      media.map((m: { id: string }) => m.id),
      [second, first],
    );
    assert.equal(media[0].object, 'media');
    assert.equal(media[0].content_type, 'image/png');
    assert.deepEqual([media[1].width, media[1].height], [40, 30]);
    assert.equal(media[1].size_bytes, jpeg(40, 30).length);
    assert.match(media[1].url, /^http:\/\/herald\.test\/files\//);
    const read = (await t.inject({ url: `/v1/posts/${res.json().data.post_id}`, key })).json().data;
    assert.deepEqual(
      read.media.map((m: { id: string }) => m.id),
      [second, first],
    );
    const { rows } = await t.container.pool.query(
      `SELECT data FROM events WHERE type = 'post.created' AND data->>'id' = $1`,
      [read.id],
    );
    assert.deepEqual(
      rows[0].data.media.map((m: { id: string }) => m.id),
      [second, first],
    );
  });

  test('media that is not ready: pending is media_not_ready, failed is media_failed with its reason', async () => {
    const pending = (await requestUpload(t, key, { filename: 'p.png', content_type: 'image/png' })).json().data
      .media_id;
    const { mediaId: failed } = await uploadBytes(t, key, png(), 'image/jpeg');
    const res = await create({ content: 'x', platforms: ['x'], media_ids: [pending, failed] });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(details(res), [`null:media_failed:/media_ids/1`, `null:media_not_ready:/media_ids/0`]);
    assert.match(
      res.json().error.details.find((d: { rule: string }) => d.rule === 'media_failed').message,
      /image\/png/,
    );
  });

  test('each target platform checks the media against its own rules, with a detail per platform and item', async () => {
    // A PNG is converted for Instagram (JPEG only), but a 1:4 picture is outside its 4:5–1.91:1 range.
    const picture = await ready(png(1, 4), 'image/png');
    const res = await create({
      content: 'png everywhere',
      platforms: ['x', 'instagram', 'facebook'],
      media_ids: [picture],
    });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(details(res), ['instagram:media_aspect_ratio:/media_ids/0']);
  });

  test('video duration is checked from the MP4 movie header', async () => {
    const long = await ready(mp4({ durationMs: 200_000 }), 'video/mp4');
    const res = await create({ content: 'long video', platforms: ['x', 'threads', 'bluesky'], media_ids: [long] });
    assert.equal(res.statusCode, 422);
    assert.deepEqual(details(res), ['bluesky:video_too_long:/media_ids/0', 'x:video_too_long:/media_ids/0']);
    const short = await ready(mp4({ durationMs: 2_000 }), 'video/mp4');
    const ok = await create({ content: 'short video', platforms: ['x', 'threads', 'bluesky'], media_ids: [short] });
    assert.equal(ok.statusCode, 201, ok.body);
  });

  test('counts and mixing: four images are fine on X, five are not; a GIF cannot join them on X', async () => {
    const images = [];
    for (let i = 0; i < 5; i++) images.push(await ready(png(i + 1, 2), 'image/png'));
    assert.equal((await create({ content: 'four', platforms: ['x'], media_ids: images.slice(0, 4) })).statusCode, 201);
    const five = await create({ content: 'five', platforms: ['x', 'threads'], media_ids: images });
    assert.deepEqual(details(five), ['x:too_many_media:/media_ids', 'x:too_many_media_of_kind:/media_ids']);
    const animated = await ready(gif(), 'image/gif');
    const mixed = await create({ content: 'mixed', platforms: ['x', 'mastodon'], media_ids: [images[0], animated] });
    assert.deepEqual(details(mixed), ['x:media_mix_unsupported:/media_ids']);
  });

  test("Instagram's media requirement is met by a JPEG", async () => {
    const photo = await ready(jpeg(16, 16), 'image/jpeg');
    assert.equal((await create({ content: 'insta', platforms: ['instagram'], media_ids: [photo] })).statusCode, 201);
  });

  test('POST /posts/validate reports the same media issues and stores nothing', async () => {
    const picture = await ready(png(1, 4), 'image/png');
    const res = await t.inject({
      method: 'POST',
      url: '/v1/posts/validate',
      key,
      payload: { content: 'x', platforms: ['instagram'], media_ids: [picture, 'med_nope'] },
    });
    assert.equal(res.statusCode, 200);
    const { valid, issues } = res.json().data;
    assert.equal(valid, false);
    assert.deepEqual(issues.map((i: { platform: string | null; rule: string }) => `${i.platform}:${i.rule}`).sort(), [
      'instagram:media_aspect_ratio',
      'null:media_not_found',
    ]);
  });
});

describe('PATCH /v1/posts/{id} and media', () => {
  test('replacing media_ids keeps the new order; changing platforms re-checks the media already attached', async () => {
    // Tall pictures (1:3): fine on X, outside Instagram's aspect range.
    const a = await ready(png(1, 3), 'image/png');
    const b = await ready(png(2, 6), 'image/png');
    const post = (await create({ content: 'patch me', platforms: ['x'], media_ids: [a] })).json().data.post;
    const replaced = await t.inject({
      method: 'PATCH',
      url: `/v1/posts/${post.id}`,
      key,
      payload: { media_ids: [b, a] },
    });
    assert.equal(replaced.statusCode, 200, replaced.body);
    assert.deepEqual(
      replaced.json().data.media.map((m: { id: string }) => m.id),
      [b, a],
    );
    const toInstagram = await t.inject({
      method: 'PATCH',
      url: `/v1/posts/${post.id}`,
      key,
      payload: { platforms: ['instagram'] },
    });
    assert.equal(toInstagram.statusCode, 422);
    assert.deepEqual(details(toInstagram), [
      'instagram:media_aspect_ratio:/media_ids/0',
      'instagram:media_aspect_ratio:/media_ids/1',
    ]);
    const cleared = await t.inject({ method: 'PATCH', url: `/v1/posts/${post.id}`, key, payload: { media_ids: null } });
    assert.deepEqual(cleared.json().data.media, []);
  });
});
