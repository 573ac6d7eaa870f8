// First comments with media (`platform_options.<p>.first_comment.media_ids`) end to end, with a worker and the
// simulators: where the platform's replies are posts (X, Bluesky, Mastodon, Threads) the reply carries the image as a
// thread part would; on Facebook the comment carries one photo (`attachment_id`). Instagram, LinkedIn and YouTube
// comments take text only, so media there is a 422 naming the rule. Media named only by a first comment is in use:
// it cannot be deleted while its post is still to go out, and the cleanup sweep keeps it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PlatformName } from '../src/platforms/limits.ts';
import type { RunningSandbox } from '../src/sandbox/server.ts';
import { mediaRecord, uploadBytes, type MediaTestApp } from './helpers/media.ts';
import { mp4 } from './helpers/media-fixtures.ts';
import { jpeg } from './helpers/media-sources.ts';
import { pollFor } from './helpers/poll.ts';
import { startMediaPublishing, type MediaPublishing } from './helpers/media-publishing.ts';

let publishing: MediaPublishing;
let sandbox: RunningSandbox;
let t: MediaTestApp;
let key: string;

before(async () => {
  publishing = await startMediaPublishing({ rateLimitFactor: 1000 });
  ({ sandbox, t, key } = publishing);
});
after(() => publishing.close());

interface Target {
  platform: string;
  status: string;
  platform_post_id: string | null;
  parts: Array<{ index: number; kind: string; status: string; platform_post_id: string | null }>;
}

const create = (payload: Record<string, unknown>) => t.inject({ method: 'POST', url: '/v1/posts', key, payload });

async function media(bytes: Buffer, type: string, filename: string): Promise<string> {
  const { mediaId, put } = await uploadBytes(t, key, bytes, type, { filename });
  assert.ok(put.status < 300, `the upload answers ${put.status}`);
  await pollFor('the media is ready', async () => (await mediaRecord(t, key, mediaId)).status === 'ready', 60_000);
  return mediaId;
}

const rulesOf = (body: string) =>
  (JSON.parse(body) as { error: { details: Array<{ platform: string | null; rule: string; path: string }> } }).error
    .details;

describe('a first comment with an image', () => {
  test('X, Bluesky, Mastodon and Threads reply with the image; Facebook comments with the photo', async () => {
    const image = await media(jpeg(64, 48), 'image/jpeg', 'comment.jpg');
    const text = `Comment media ${Date.now()}`;
    const comment = `See the picture ${Date.now()}`;
    const platforms = ['x', 'bluesky', 'mastodon', 'threads', 'facebook'] as const;
    const res = await create({
      content: text,
      platforms,
      publish_now: true,
      platform_options: Object.fromEntries(
        platforms.map((p) => [p, { first_comment: { text: comment, media_ids: [image] } }]),
      ),
    });
    assert.equal(res.statusCode, 201, res.body);
    const id = res.json().data.post.id as string;
    const post = await pollFor(
      'the five targets settled',
      async () => {
        const body = (await t.inject({ url: `/v1/posts/${id}`, key })).json().data as {
          status: string;
          targets: Target[];
        };
        return ['published', 'partially_published', 'failed'].includes(body.status) ? body : undefined;
      },
      60_000,
    );
    assert.equal(post.status, 'published', JSON.stringify(post.targets));
    for (const target of post.targets) {
      const platform = target.platform as PlatformName;
      assert.deepEqual(
        target.parts.map((p) => [p.kind, p.status]),
        [
          ['post', 'published'],
          ['first_comment', 'published'],
        ],
        platform,
      );
      const made = target.parts[1]!.platform_post_id!;
      const live = (await sandbox.simulator(platform).posts()).filter((p) => !p.deleted);
      // The post itself carries no media: the image is the comment's.
      assert.equal(live.find((p) => p.id === target.platform_post_id)?.media, 0, `${platform}: the post`);
      if (platform === 'facebook') {
        const kit = sandbox.simulator('facebook').kit;
        const stored = await kit.store.get<{ message: string; photoId?: string }>('comment', made);
        assert.equal(stored?.message, comment);
        assert.ok(stored?.photoId, 'facebook: the comment has a photo attached');
        const photo = await kit.store.get<{ postId: string | null; published: boolean }>('photo', stored.photoId);
        assert.deepEqual([photo?.postId, photo?.published], [made, false]);
      } else {
        const reply = live.find((p) => p.id === made);
        assert.equal(reply?.text, comment, platform);
        assert.equal(reply?.replyTo, target.platform_post_id, `${platform}: a reply to the post`);
        assert.equal(reply?.media, 1, `${platform}: the reply carries the image`);
      }
    }
  });
});

describe('first comment media refused at creation', () => {
  test('Instagram, LinkedIn and YouTube comments take no media: 422 first_comment_media_unsupported', async () => {
    const image = await media(jpeg(32, 32), 'image/jpeg', 'refused.jpg');
    const res = await create({
      content: 'Text-only comments',
      platforms: ['instagram', 'linkedin', 'youtube'],
      media_ids: [image],
      platform_options: Object.fromEntries(
        ['instagram', 'linkedin', 'youtube'].map((p) => [p, { first_comment: { text: 'hi', media_ids: [image] } }]),
      ),
    });
    assert.equal(res.statusCode, 422, res.body);
    const refused = rulesOf(res.body).filter((d) => d.rule === 'first_comment_media_unsupported');
    assert.deepEqual(refused.map((d) => d.platform).sort(), ['instagram', 'linkedin', 'youtube']);
    assert.ok(refused.every((d) => d.path === `/platform_options/${d.platform}/first_comment/media_ids`));
  });

  test('Facebook takes one image: two, or a video, are refused; an unknown id is named at its path', async () => {
    const [a, b] = [await media(jpeg(32, 24), 'image/jpeg', 'a.jpg'), await media(jpeg(24, 32), 'image/jpeg', 'b.jpg')];
    const video = await media(mp4({ durationMs: 3_000, width: 320, height: 240 }), 'video/mp4', 'c.mp4');
    const check = async (ids: string[]) => {
      const res = await create({
        content: 'Facebook comment media',
        platforms: ['facebook'],
        platform_options: { facebook: { first_comment: { text: 'Look', media_ids: ids } } },
      });
      assert.equal(res.statusCode, 422, res.body);
      return rulesOf(res.body).map((d) => [d.rule, d.path]);
    };
    const base = '/platform_options/facebook/first_comment/media_ids';
    assert.deepEqual(await check([a, b]), [['first_comment_too_many_media', base]]);
    assert.deepEqual(await check([video]), [['first_comment_media_kind', `${base}/0`]]);
    assert.deepEqual(await check(['med_missing']), [['media_not_found', `${base}/0`]]);
  });

  test('an X reply is held to the post rules for media: five images are too many', async () => {
    const image = await media(jpeg(16, 16), 'image/jpeg', 'x.jpg');
    const others = await Promise.all([1, 2, 3, 4].map((n) => media(jpeg(16 + n, 16), 'image/jpeg', `x${n}.jpg`)));
    const res = await create({
      content: 'Too many',
      platforms: ['x'],
      platform_options: { x: { first_comment: { text: 'Five', media_ids: [image, ...others] } } },
    });
    assert.equal(res.statusCode, 422, res.body);
    const issues = rulesOf(res.body);
    assert.ok(issues.some((d) => d.rule === 'too_many_media'));
    assert.ok(issues.every((d) => d.platform === 'x' && d.path === '/platform_options/x/first_comment/media_ids'));
  });
});

describe('media named only by a first comment is in use', () => {
  test('it cannot be deleted while its post is scheduled, and the sweep keeps it', async () => {
    const image = await media(jpeg(40, 30), 'image/jpeg', 'kept.jpg');
    const unused = await media(jpeg(30, 40), 'image/jpeg', 'swept.jpg');
    const res = await create({
      content: 'Later',
      platforms: ['facebook'],
      schedule_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      platform_options: { facebook: { first_comment: { text: 'With a photo', media_ids: [image] } } },
    });
    assert.equal(res.statusCode, 201, res.body);
    const postId = res.json().data.post.id as string;

    const refused = await t.inject({ method: 'DELETE', url: `/v1/media/${image}`, key });
    assert.equal(refused.statusCode, 409, refused.body);
    assert.equal(refused.json().error.code, 'PUBLIC_API_STATE_CONFLICT');
    assert.match(refused.json().error.message, new RegExp(postId));

    const age = (id: string) =>
      t.container.pool.query(`UPDATE media SET created_at = now() - interval '400 days' WHERE id = $1`, [id]);
    await age(image);
    await age(unused);
    await t.container.media.sweep();
    const status = async (id: string) =>
      (await t.container.pool.query<{ deleted_at: Date | null }>('SELECT deleted_at FROM media WHERE id = $1', [id]))
        .rows[0];
    assert.equal((await status(image))?.deleted_at, null, 'the comment media is kept');
    assert.equal(await status(unused), undefined, 'the unused media is swept (the control)');

    // Once the post is deleted, nothing uses it.
    assert.equal((await t.inject({ method: 'DELETE', url: `/v1/posts/${postId}`, key })).statusCode, 200);
    await t.container.media.sweep();
    assert.equal(await status(image), undefined);
  });
});
