// Reconciliation adopts only what is provably this target's (issue 18): post A publishes a text, post B with the same
// text on the same account either meets the platform's duplicate rejection (X, LinkedIn, Facebook) and is retried,
// or loses its answer after the platform made it (Mastodon, Bluesky, Instagram, Threads). In every case B never
// takes A's platform post: a duplicate fails as PLATFORM_DUPLICATE naming A, a lost answer is reconciled to B's own
// post. A first send refused outright is forgotten, so a retry never adopts a post made since. Through the public
// API, a worker and the simulators, as a client sees it; the part marks and the holder look-up also at the repository.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, type WorkerHandle } from '../src/jobs/worker.ts';
import { sessionFor } from '../src/features/connections/platform-access.ts';
import { markPartsPublished, markSending, postHolding } from '../src/features/publishing/target-parts.repo.ts';
import { partMemory } from '../src/platforms/part-memory.ts';
import { signedReadUrlRules } from '../src/features/media/storage/read-url-rules.ts';
import type { PlatformName } from '../src/platforms/types.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { sandboxSecret } from './helpers/app.ts';
import { buildMediaTestApp, uploadBytes, type MediaTestApp } from './helpers/media.ts';
import { jpeg } from './helpers/media-sources.ts';
import { pollFor } from './helpers/poll.ts';
import type { Post } from './helpers/publishing.ts';

let sandbox: RunningSandbox;
let t: MediaTestApp;
let worker: WorkerHandle;
let key: string;

before(async () => {
  const settings: Record<string, unknown> = {};
  sandbox = await startSandbox({ secret: sandboxSecret(), settings });
  t = await buildMediaTestApp({
    env: { HERALD_SANDBOX_URL: sandbox.url, HERALD_WORKER_POLL_INTERVAL_MS: '200', HERALD_PLATFORM_TIMEOUT_MS: '2000' },
  });
  // Instagram and Threads fetch media from Herald's signed URLs, which name http://herald.test: point them at the
  // listening app (as publishing-meta.test.ts does).
  settings.mediaFetchUrls = signedReadUrlRules({ ...t.config, publicUrl: t.origin });
  const library = t.container.mediaLibrary;
  t.container.mediaLibrary = {
    async sources(workspaceId, ids) {
      return (await library.sources(workspaceId, ids)).map((s) => ({
        ...s,
        signedUrl: async () => (await s.signedUrl!()).replace('http://herald.test', t.origin),
      }));
    },
  };
  worker = await startWorker(t.container);
  key = await t.key();
});
after(async () => {
  await worker.stop();
  await t.close();
  await sandbox.close();
});

async function image(): Promise<string> {
  const { mediaId, put } = await uploadBytes(t, key, jpeg(64, 48), 'image/jpeg', { filename: 'photo.jpg' });
  assert.equal(put.status, 200, put.body.toString());
  return mediaId;
}

/** Creates a post for one platform, published now, and waits until it settles. */
async function publish(platform: PlatformName, text: string, label: string): Promise<Post> {
  return settled(await create(platform, text), label);
}

/** Creates a post for one platform, published now; returns its id. */
async function create(platform: PlatformName, text: string): Promise<string> {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: {
      content: text,
      platforms: [platform],
      publish_now: true,
      // Instagram needs an image; the others publish text only.
      ...(platform === 'instagram' ? { media_ids: [await image()] } : {}),
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.post.id;
}

function settled(id: string, label: string): Promise<Post> {
  return pollFor(
    label,
    async () => {
      const post: Post = (await t.inject({ url: `/v1/posts/${id}`, key })).json().data;
      return ['published', 'partially_published', 'failed'].includes(post.status) ? post : undefined;
    },
    60_000,
  );
}

async function retry(post: Post, label: string): Promise<Post> {
  const res = await t.inject({ method: 'POST', url: `/v1/posts/${post.id}/retry`, key });
  assert.equal(res.statusCode, 200, res.body);
  return settled(post.id, label);
}

/** The live posts of `text` on the platform's simulator. */
async function held(platform: PlatformName, text: string) {
  return (await sandbox.simulator(platform).posts()).filter((p) => p.text === text && !p.deleted);
}

/** The Herald post a duplicate rejection names in its structured field (docs/api.md "Posts"). */
function duplicateOf(target: Post['targets'][number]): unknown {
  const error: Record<string, unknown> | null = target.error;
  return error?.duplicate_of;
}

/** What the engine recorded as published on the platform, for every part of every target of the workspace. */
async function recordedIds(): Promise<string[]> {
  const { rows } = await t.container.pool.query<{ platform_post_id: string }>(
    `SELECT platform_post_id FROM target_parts WHERE platform_post_id IS NOT NULL`,
  );
  return rows.map((r) => r.platform_post_id);
}

describe('a duplicate rejection is never turned into the earlier post', () => {
  for (const platform of ['x', 'linkedin', 'facebook'] as const) {
    test(`${platform}: B with A's text fails PLATFORM_DUPLICATE naming A, and a retry of B does not adopt A's post`, async () => {
      const text = `Same words on ${platform} ${Date.now()}`;
      const a = await publish(platform, text, `${platform}: A published`);
      assert.equal(a.status, 'published');
      const aId = a.targets[0]!.platform_post_id;

      const b = await publish(platform, text, `${platform}: B settled`);
      assert.equal(b.status, 'failed', JSON.stringify(b.targets[0]));
      const first = b.targets[0]!;
      assert.equal(first.error!.code, 'PLATFORM_DUPLICATE');
      assert.equal(first.platform_post_id, null, "B does not carry A's platform id");
      assert.match(first.error!.message, new RegExp(a.id), 'the error names the Herald post that holds the text');
      assert.deepEqual(duplicateOf(first), { post_id: a.id }, 'and says so in a field');

      const again = await retry(b, `${platform}: B retried`);
      const target = again.targets[0]!;
      assert.equal(again.status, 'failed', `B must not be published with A's post (${JSON.stringify(target)})`);
      assert.notEqual(target.platform_post_id, aId);
      assert.equal(target.error!.code, 'PLATFORM_DUPLICATE');
      assert.match(target.error!.message, new RegExp(a.id));
      assert.deepEqual(duplicateOf(target), { post_id: a.id });
      assert.equal((await held(platform, text)).length, 1, 'the platform holds the text once');
      const ids = await recordedIds();
      assert.equal(ids.length, new Set(ids).size, 'no platform post is recorded twice');
    });
  }
});

describe("a lost answer is reconciled to B's own post, never to A's", () => {
  for (const platform of ['mastodon', 'bluesky', 'instagram', 'threads'] as const) {
    test(`${platform}: A published, then B with the same text loses its answer; B gets its own post`, async () => {
      const text = `Twice on ${platform} ${Date.now()}`;
      const a = await publish(platform, text, `${platform}: A published`);
      assert.equal(a.status, 'published', JSON.stringify(a.targets[0]));
      const aId = a.targets[0]!.platform_post_id;

      sandbox.simulator(platform).faults.add({ fault: 'lost_response', operation: 'create_post' });
      const b = await publish(platform, text, `${platform}: B settled`);
      assert.equal(b.status, 'published', JSON.stringify(b.targets[0]));
      assert.equal(sandbox.simulator(platform).faults.fired().lost_response, 1, 'the answer was lost');
      const bId = b.targets[0]!.platform_post_id;
      assert.notEqual(bId, aId, "B was not reconciled to A's post");
      const copies = (await held(platform, text)).map((p) => p.id).sort();
      assert.deepEqual(copies, [aId, bId].sort(), 'two posts, one per Herald post; no third copy');
      const ids = await recordedIds();
      assert.equal(ids.length, new Set(ids).size, 'no platform post is recorded twice');
    });
  }
});

test('the database refuses one platform post for two parts of one connection', async () => {
  const text = `Held once ${Date.now()}`;
  const a = await publish('mastodon', text, 'mastodon: A published');
  const b = await publish('mastodon', `${text} (B)`, 'mastodon: B published');
  const { rows } = await t.container.pool.query<{ connection_id: string }>(
    `SELECT connection_id FROM target_parts WHERE target_id = ANY($1::text[])`,
    [[a.targets[0]!.id, b.targets[0]!.id]],
  );
  assert.deepEqual(
    rows.map((r) => r.connection_id),
    [t.connections.mastodon, t.connections.mastodon],
    'each part carries its connection',
  );
  await assert.rejects(
    t.container.pool.query(`UPDATE target_parts SET platform_post_id = $1 WHERE target_id = $2`, [
      a.targets[0]!.platform_post_id,
      b.targets[0]!.id,
    ]),
    (error: unknown) => error instanceof Error && 'code' in error && error.code === '23505',
  );
});

test('the simulated duplicate fault on a first send: the part is forgotten, and a retry never adopts a post made since', async () => {
  const text = `Refused once ${Date.now()}`;
  sandbox.simulator('x').faults.add({ fault: 'duplicate', operation: 'create_post' });
  const b = await publish('x', text, 'x: B refused by the duplicate fault');
  const refused = b.targets[0]!;
  assert.equal(b.status, 'failed', JSON.stringify(refused));
  assert.equal(refused.error!.code, 'PLATFORM_DUPLICATE');
  assert.equal(duplicateOf(refused), undefined, 'no Herald post holds the text');
  const { rows } = await t.container.pool.query('SELECT state FROM target_parts WHERE target_id = $1', [refused.id]);
  assert.deepEqual(rows, [], 'the refused part is not left `sending`');

  // Someone posts the same text on X outside Herald, after B's send.
  const { rows: connection } = await t.container.pool.query('SELECT * FROM connections WHERE id = $1', [
    t.connections.x,
  ]);
  const adapter = t.container.platforms.get('x')!;
  const outside = await adapter.publish(sessionFor(t.container.platformAccess, connection[0]), {
    index: 0,
    text,
    media: [],
    parent: null,
    root: null,
    key: adapter.newPartKey(new Date()),
    firstSentAt: new Date(),
    options: {},
    ...partMemory(),
  });

  const again = await retry(b, 'x: B retried');
  const target = again.targets[0]!;
  assert.notEqual(target.platform_post_id, outside.id, 'B does not adopt a post it did not make');
  assert.equal(again.status, 'failed', JSON.stringify(target));
  assert.equal(target.error!.code, 'PLATFORM_DUPLICATE', "X's own duplicate check refuses the fresh send");
  assert.deepEqual(
    (await held('x', text)).map((p) => p.id),
    [outside.id],
  );
});

test('mastodon: two posts with the same text lose their answers at once; each ends with a status of its own', async () => {
  const mastodon = sandbox.simulator('mastodon');
  const lostBefore = mastodon.faults.fired().lost_response ?? 0;
  const text = `Twins ${Date.now()}`;
  // Mastodon has no duplicate check: both statuses are made, and both answers are lost.
  mastodon.faults.add({ fault: 'lost_response', operation: 'create_post', times: 2 });
  const ids = await Promise.all([create('mastodon', text), create('mastodon', text)]);
  const posts = await Promise.all(ids.map((id, i) => settled(id, `twin ${i} settled`)));
  assert.equal((mastodon.faults.fired().lost_response ?? 0) - lostBefore, 2, 'both answers were lost');
  for (const post of posts) assert.equal(post.status, 'published', JSON.stringify(post.targets[0]));
  const statuses = posts.map((p) => p.targets[0]!.platform_post_id!);
  assert.notEqual(statuses[0], statuses[1], 'two Herald posts, two statuses');
  assert.deepEqual((await held('mastodon', text)).map((p) => p.id).sort(), [...statuses].sort(), 'no third copy');
  const recorded = await recordedIds();
  assert.equal(recorded.length, new Set(recorded).size, 'no platform post is recorded twice');
});

test('a batch of part marks where one meets a platform post another part holds: only that one is taken', async () => {
  const a = await publish('mastodon', `Held ${Date.now()}`, 'mastodon: A published');
  const heldId = a.targets[0]!.platform_post_id!;
  // A draft thread through the same connection, its two parts marked `sending` under the draft's claim token (0).
  const res = await t.inject({
    method: 'POST',
    url: '/v1/posts',
    key,
    payload: {
      content: `Batch ${Date.now()}`,
      platforms: ['mastodon'],
      connection_ids: [t.connections.mastodon],
      platform_options: { mastodon: { thread: ['two'] } },
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  const targetId: string = res.json().data.post.targets[0].id;
  const fence = { workspaceId: t.owner.workspaceId, targetId, token: 0 };
  const marked = await markSending(t.container.pool, [
    { ...fence, position: 0, key: 'k0' },
    { ...fence, position: 1, key: 'k1' },
  ]);
  assert.equal(marked.length, 2);

  const marks = await markPartsPublished(t.container.pool, [
    { ...fence, position: 0, part: { id: heldId, url: 'https://example.test/held' } },
    { ...fence, position: 1, part: { id: `fresh-${Date.now()}`, url: 'https://example.test/fresh' } },
  ]);
  assert.deepEqual(Object.fromEntries(marks), { [`${targetId}/0`]: 'taken', [`${targetId}/1`]: 'published' });
  const { rows } = await t.container.pool.query(
    'SELECT position, state FROM target_parts WHERE target_id = $1 ORDER BY position',
    [targetId],
  );
  assert.deepEqual(rows, [
    { position: 0, state: 'sending' },
    { position: 1, state: 'published' },
  ]);
  await t.container.pool.query('DELETE FROM target_parts WHERE target_id = $1', [targetId]);
});

test('the Herald post a duplicate is said to duplicate is a live one: a deleted post is never named', async () => {
  const text = `Held by a post deleted since ${Date.now()}`;
  const a = await publish('mastodon', text, 'mastodon: A published');
  const b = await publish('mastodon', `${text} (B)`, 'mastodon: B published');
  const holder = () => postHolding(t.container.pool, t.owner.workspaceId, b.targets[0]!.id, { text });
  assert.equal(await holder(), a.id);
  await t.container.pool.query('UPDATE posts SET deleted_at = now() WHERE id = $1', [a.id]);
  assert.equal(await holder(), undefined);
});
