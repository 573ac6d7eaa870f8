// The crash test's YouTube cases: a worker process (the real `herald serve --role worker`) SIGKILLed during a
// resumable upload, then a new worker started. Killed with the first 8 MiB chunk at YouTube and the last PUT in
// flight: the restart finds the session recorded with the part, asks it how many bytes it holds, sends only the rest
// into that same session, and records the one video it makes. Killed after the last PUT made the video, while the
// worker waits for processing: the restart asks the session, which answers the video, and adopts it. Never a second
// session, never a second video.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addSandboxConnections } from '../src/features/connections/connections.service.ts';
import { outboundRequest } from '../src/lib/outbound.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import type { UploadSession, YoutubeVideo } from '../src/sandbox/youtube/state.ts';
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
  sandbox = await startSandbox({ secret: sandboxSecret(), rateLimitFactor: 1000, platforms: ['youtube'] });
  t = await buildMediaTestApp({ env: { HERALD_SANDBOX_URL: sandbox.url } });
});
afterEach(async () => {
  await workers.killAll();
  sandbox.simulator('youtube').faults.clear();
});
after(async () => {
  await workers.killAll();
  await t.close();
  await sandbox.close();
});

/** A test workspace with a YouTube sandbox connection, a ready video of `mdatBytes`, and a post of it published now. */
async function videoPost(text: string, mdatBytes: number) {
  const { workspaceId } = await t.workspace('test');
  const [connection] = await addSandboxConnections(
    { db: t.container.pool, access: t.container.platformAccess, sandboxTransport: outboundRequest },
    { workspaceId, platforms: ['youtube'] },
  );
  const key = await t.key({ workspaceIds: [workspaceId] });
  const bytes = mp4({ durationMs: 6_000, width: 720, height: 1280, mdatBytes });
  const { mediaId, put } = await uploadBytes(t, key, bytes, 'video/mp4', { filename: 'clip.mp4' });
  assert.ok(put.status < 300, `the upload answers ${put.status}`);
  await pollFor('the video is ready', async () => (await mediaRecord(t, key, mediaId)).status === 'ready', 60_000, 100);
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: {
      content: text,
      platforms: ['youtube'],
      connection_ids: [connection!.id],
      media_ids: [mediaId],
      publish_now: true,
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  return { postId: res.json().data.post.id as string, size: bytes.length };
}

async function recordedSession(postId: string): Promise<string> {
  const { rows } = await t.container.pool.query<{ pending_refs: Record<string, string> }>(
    'SELECT p.pending_refs FROM target_parts p JOIN post_targets t ON t.id = p.target_id WHERE t.post_id = $1',
    [postId],
  );
  const session = rows[0]?.pending_refs.session;
  assert.ok(session, 'the upload session was recorded with the part before the first byte');
  return new URL(session).searchParams.get('upload_id')!;
}

/** The target once settled, and the one video it holds: made by the recorded session, recorded on the part. */
async function oneVideoFrom(postId: string, text: string, sessionId: string, size: number) {
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
  const store = sandbox.simulator('youtube').kit.store;
  const videos = (await store.list<YoutubeVideo>('video')).filter((v) => v.metadata.description === text);
  assert.equal(videos.length, 1, 'one video');
  assert.equal(videos[0]!.sessionId, sessionId, 'made by the recorded session');
  assert.equal(videos[0]!.size, size, 'every byte, once');
  const sessions = (await store.list<UploadSession>('upload-session')).filter((s) => s.metadata.description === text);
  assert.deepEqual(
    sessions.map((s) => s.id),
    [sessionId],
    'no second session',
  );
  const { rows } = await t.container.pool.query<{ platform_post_id: string }>(
    'SELECT platform_post_id FROM target_parts WHERE target_id = $1',
    [target.id],
  );
  assert.equal(rows[0]?.platform_post_id, videos[0]!.id);
}

describe('a worker killed in the middle of a YouTube upload', () => {
  test(
    'with the first chunk at YouTube and the last PUT in flight: the restart sends the rest into the same session',
    { timeout: 180_000 },
    async () => {
      const faults = sandbox.simulator('youtube').faults;
      const hangs = faults.fired().hang ?? 0;
      // Over 8 MiB: two PUTs (8 MiB, then the rest); the last hangs, unprocessed.
      faults.add({ fault: 'hang', operation: 'create_post', times: 1 });
      const worker = workers.start();
      const text = `youtube crash mid-upload ${Date.now()}`;
      const { postId, size } = await videoPost(text, 9_000_000);
      await pollFor('the worker inside the last PUT', async () => (faults.fired().hang ?? 0) > hangs, 60_000, 50);
      const sessionId = await recordedSession(postId);
      const store = sandbox.simulator('youtube').kit.store;
      assert.equal((await store.get<UploadSession>('upload-session', sessionId))!.received, 8 * 1024 * 1024);
      await workers.kill(worker);
      faults.clear();
      workers.start();
      await oneVideoFrom(postId, text, sessionId, size);
    },
  );

  test(
    'after the last PUT made the video, while it processes: the restart adopts it through the session',
    { timeout: 180_000 },
    async () => {
      const faults = sandbox.simulator('youtube').faults;
      const hangs = faults.fired().hang ?? 0;
      // videos.list (the processing poll) hangs: the video exists, Herald has not recorded it.
      faults.add({ fault: 'hang', operation: 'media_status', times: 1 });
      const worker = workers.start();
      const text = `youtube crash processing ${Date.now()}`;
      const { postId, size } = await videoPost(text, 300_000);
      await pollFor('the worker waiting for processing', async () => (faults.fired().hang ?? 0) > hangs, 60_000, 50);
      const sessionId = await recordedSession(postId);
      await workers.kill(worker);
      faults.clear();
      workers.start();
      await oneVideoFrom(postId, text, sessionId, size);
    },
  );
});
