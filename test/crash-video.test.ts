// The crash test's video case: a worker process (the real `herald serve --role worker`) SIGKILLed in the middle of a
// chunked video upload to TikTok — its first chunk taken, the second in flight — and a new worker started. The
// restart finds the publish recorded with the part (its `publish_id` and upload URL), reads from TikTok how many bytes
// arrived, sends the rest to the same upload URL, and records that one video: no second init, no duplicate.
import { after, afterEach, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { addSandboxConnections } from '../src/features/connections/connections.service.ts';
import { outboundRequest } from '../src/lib/outbound.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { sandboxSecret } from './helpers/app.ts';
import { buildMediaTestApp, mediaRecord, uploadBytes, type MediaTestApp } from './helpers/media.ts';
import { mp4 } from './helpers/media-fixtures.ts';
import { crashWorkers } from './helpers/crash-workers.ts';
import { pollFor } from './helpers/poll.ts';

let sandbox: RunningSandbox;
let t: MediaTestApp;
const workers = crashWorkers(() => ({
  DATABASE_URL: t.db.connectionString,
  HERALD_DATA_DIR: t.dataDir,
  HERALD_SANDBOX_URL: sandbox.url,
}));

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret(), rateLimitFactor: 1000, platforms: ['tiktok'] });
  t = await buildMediaTestApp({ env: { HERALD_SANDBOX_URL: sandbox.url } });
});
afterEach(async () => {
  await workers.killAll();
});
after(async () => {
  await workers.killAll();
  await t.close();
  await sandbox.close();
});

interface SimPublish {
  id: string;
  title: string;
  postId: string;
  uploadedBytes: number;
  receivedAt: number | null;
}

test(
  'a worker killed mid-upload of a TikTok video: the restart resumes the same publish, one video',
  { timeout: 180_000 },
  async () => {
    const { workspaceId } = await t.workspace('test');
    const [connection] = await addSandboxConnections(
      { db: t.container.pool, access: t.container.platformAccess, sandboxTransport: outboundRequest },
      { workspaceId, platforms: ['tiktok'] },
    );
    const key = await t.key({ workspaceIds: [workspaceId] });
    // Over 20 MB: two chunks of TikTok's transfer (10 MB, then the rest).
    const bytes = mp4({ durationMs: 6_000, width: 1280, height: 720, mdatBytes: 20_500_000 });
    const { mediaId, put } = await uploadBytes(t, key, bytes, 'video/mp4', { filename: 'clip.mp4' });
    assert.ok(put.status < 300, `the upload answers ${put.status}`);
    await pollFor(
      'the video is ready',
      async () => (await mediaRecord(t, key, mediaId)).status === 'ready',
      60_000,
      100,
    );

    const faults = sandbox.simulator('tiktok').faults;
    // The second chunk hangs: the first is at TikTok, the worker is inside the upload.
    faults.add({ fault: 'hang', operation: 'upload_chunk', skip: 1, times: 1 });
    const worker = workers.start();
    const text = `video crash ${Date.now()}`;
    const res = await t.inject({
      method: 'POST',
      url: '/v1/posts',
      key,
      payload: {
        content: text,
        platforms: ['tiktok'],
        connection_ids: [connection!.id],
        media_ids: [mediaId],
        publish_now: true,
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const postId: string = res.json().data.post.id;
    await pollFor('the worker inside the second chunk', async () => (faults.fired().hang ?? 0) > 0, 60_000, 50);

    const { rows } = await t.container.pool.query<{ pending_refs: Record<string, string> }>(
      `SELECT p.pending_refs FROM target_parts p JOIN post_targets t ON t.id = p.target_id WHERE t.post_id = $1`,
      [postId],
    );
    const recorded = rows[0]?.pending_refs ?? {};
    assert.ok(recorded.publish_id && recorded.upload_url, 'the publish was recorded with the part before the upload');
    const store = sandbox.simulator('tiktok').kit.store;
    const before = (await store.get<SimPublish>('publish', recorded.publish_id))!;
    assert.equal(before.uploadedBytes, 10_000_000, 'the first chunk is at TikTok');
    assert.equal(before.receivedAt, null);
    await workers.kill(worker);
    faults.clear();

    workers.start();
    const target = await pollFor(
      'the target settled after the restart',
      async () =>
        (
          await t.container.pool.query<{ id: string; status: string; error: unknown }>(
            "SELECT id, status, error FROM post_targets WHERE post_id = $1 AND status IN ('published', 'failed')",
            [postId],
          )
        ).rows[0],
      90_000,
      100,
    );
    assert.equal(target.status, 'published', JSON.stringify(target.error));
    const publishes = (await store.list<SimPublish>('publish')).filter((p) => p.title === text);
    assert.deepEqual(
      publishes.map((p) => p.id),
      [recorded.publish_id],
      'the same publish carried on: no second init',
    );
    const held = (await sandbox.simulator('tiktok').posts()).filter((p) => p.text === text);
    assert.equal(held.length, 1, 'one video');
    const { rows: parts } = await t.container.pool.query<{ platform_post_id: string }>(
      'SELECT platform_post_id FROM target_parts WHERE target_id = $1',
      [target.id],
    );
    assert.equal(parts[0]?.platform_post_id, held[0]!.id);
  },
);
