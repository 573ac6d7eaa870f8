// One video to every video platform, end to end in the sandbox, from Herald started as `npm start` starts it (the
// first start's Sandbox workspace, its sandbox connections and its key): every platform is seeded (Pinterest with a
// board, Google Business Profile on a location); the video is uploaded through the media API and published with one
// post to every platform whose limits take video, whichever they are, and each holds it once. A platform that needs
// an option names it in its connection's options (a Pinterest board); the test sets it from there, never by the
// platform's name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/lib/logger.ts';
import { startHerald } from '../src/serve.ts';
import { TEST_SECRET } from './helpers/app.ts';
import { createTestDatabase } from './helpers/db.ts';
import { mp4 } from './helpers/media-fixtures.ts';
import { pollFor } from './helpers/poll.ts';
import { freePort } from './helpers/ports.ts';

interface PlatformItem {
  id: string;
  limits: { media: { kinds: { video?: unknown } } };
}
interface ConnectionItem {
  id: string;
  platform: string;
  account_id: string;
  options?: { boards?: Array<{ id: string }> };
}
interface Target {
  platform: string;
  status: string;
  platform_post_id?: string | null;
  error?: unknown;
}

test('one video publishes once to every video platform of the sandbox, from a first start', async () => {
  const db = await createTestDatabase();
  const config = loadConfig({
    DATABASE_URL: db.connectionString,
    HERALD_SECRET_KEY: TEST_SECRET,
    PORT: String(await freePort()),
    // The fixture is a well-formed MP4 header without real frames: Herald reads it itself.
    HERALD_FFPROBE: 'off',
    HERALD_FFMPEG: 'off',
    // The simulators' read endpoint: what each platform holds after the post.
    HERALD_SANDBOX_CONTROL: 'on',
  });
  let printed = '';
  const running = await startHerald(config, 'all', {
    logger: createLogger('silent'),
    print: (text) => (printed += text),
  });
  try {
    const key = /API key\s+(hk_test_\w+)/.exec(printed)?.[1];
    assert.ok(key, `the first start prints a key:\n${printed}`);
    const api = async <T>(path: string, init: RequestInit = {}): Promise<{ status: number; data: T }> => {
      const res = await fetch(`${running.url}/v1${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          ...(init.method ? { 'idempotency-key': `video-everywhere-${path}-${Date.now()}` } : {}),
          ...init.headers,
        },
      });
      const body = (await res.json()) as { data: T; error?: unknown };
      return { status: res.status, data: body.data ?? (body.error as T) };
    };

    const platforms = (await api<{ items: PlatformItem[] }>('/platforms')).data.items;
    const video = platforms.filter((p) => p.limits.media.kinds.video).map((p) => p.id);
    assert.ok(video.length >= 3, `video platforms: ${video.join(', ')}`);
    console.log(`# video platforms: ${video.join(', ')}`);
    const connections = (await api<{ items: ConnectionItem[] }>('/connections?limit=100')).data.items;
    assert.deepEqual(
      platforms.map((p) => p.id).filter((p) => !connections.some((c) => c.platform === p)),
      [],
      'the first start connected every platform',
    );
    // The seeded connections carry what their platform needs: a Pinterest board, a Business Profile location.
    const pinterest = connections.find((c) => c.platform === 'pinterest');
    assert.ok(!pinterest || (pinterest.options?.boards?.length ?? 0) > 0, 'the Pinterest connection has a board');
    const gbp = connections.find((c) => c.platform === 'googlebusiness');
    assert.ok(!gbp || /^accounts\/\d+\/locations\/\d+$/.test(gbp.account_id), `a location: ${gbp?.account_id}`);

    // The video, through the media API as a client uploads it.
    const bytes = mp4({ durationMs: 6_000, width: 1280, height: 720, mdatBytes: 200_000 });
    const asked = await api<{ media_id: string; upload: { signed_url: string; headers: Record<string, string> } }>(
      '/media/upload-url',
      {
        method: 'POST',
        body: JSON.stringify({ filename: 'clip.mp4', content_type: 'video/mp4', size_bytes: bytes.length }),
      },
    );
    assert.equal(asked.status, 201, JSON.stringify(asked));
    const put = await fetch(asked.data.upload.signed_url, {
      method: 'PUT',
      headers: asked.data.upload.headers,
      body: new Uint8Array(bytes),
    });
    assert.ok(put.status < 300, `the upload answers ${put.status}`);
    const mediaId = asked.data.media_id;
    await pollFor(
      'the video is ready',
      async () => {
        const { data } = await api<{ status: string; failure_reason?: string }>(`/media/${mediaId}`);
        assert.notEqual(data.status, 'failed', data.failure_reason);
        return data.status === 'ready';
      },
      60_000,
      100,
    );

    // Options a platform needs, from what its connection offers (a board to pin to).
    const platformOptions: Record<string, Record<string, unknown>> = {};
    for (const c of connections) {
      const board = c.options?.boards?.[0];
      if (board && video.includes(c.platform)) platformOptions[c.platform] = { board_id: board.id };
    }
    const created = await api<{ post_id: string }>('/posts', {
      method: 'POST',
      body: JSON.stringify({
        content: 'One clip, every video platform',
        platforms: video,
        media_ids: [mediaId],
        platform_options: platformOptions,
        publish_now: true,
      }),
    });
    assert.ok([201, 202].includes(created.status), JSON.stringify(created.data));

    const post = await pollFor(
      'the video post settles on every platform',
      async () => {
        const { data } = await api<{ status: string; targets: Target[] }>(`/posts/${created.data.post_id}`);
        return ['published', 'partially_published', 'failed'].includes(data.status) ? data : undefined;
      },
      180_000,
      200,
    );
    const failed = post.targets.filter((t) => t.status !== 'published');
    assert.deepEqual(
      failed.map((t) => `${t.platform}: ${JSON.stringify(t.error)}`),
      [],
      'every video platform published the video',
    );
    assert.deepEqual(post.targets.map((t) => t.platform).sort(), [...video].sort());
    // Once each: the platform holds one post of this text, and it is the one the target names.
    for (const t of post.targets) {
      const held = (await (await fetch(`${running.url}/sandbox/${t.platform}/_sandbox/posts`)).json()) as {
        posts: Array<{ id: string; text: string; media: number; deleted: boolean }>;
      };
      const ours = held.posts.filter((p) => !p.deleted && p.text.includes('One clip, every video platform'));
      assert.deepEqual(
        ours.map((p) => [p.id, p.media]),
        [[t.platform_post_id, 1]],
        `${t.platform} holds the video post once`,
      );
    }
  } finally {
    await running.stop();
    await db.drop();
  }
});
