// Every part of a thread is visible (docs/api.md "Posts"): each target lists its parts with their status, platform
// id, URL and error, in REST, in the webhook events and through MCP; a later part that fails is shown as failed, and
// a retry resumes from it without sending a published part again.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './helpers/app.ts';
import { pollFor } from './helpers/poll.ts';
import { PUBLISHING_ENV, publishingRequests, type Post } from './helpers/publishing.ts';

type Part = {
  index: number;
  status: string;
  platform_post_id: string | null;
  url: string | null;
  error: { code: string } | null;
};
type Target = Post['targets'][number] & {
  parts: Part[];
  next_attempt_at: string | null;
  attempt_count: number;
  connection_id: string | null;
};
type PostWithParts = Omit<Post, 'targets'> & { targets: Target[] };

let sandbox: RunningSandbox;
let t: TestApp;
let key: string;

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret() });
  // Two attempts: a part that fails twice fails its target within a test.
  t = await buildTestApp({
    sandboxUrl: sandbox.url,
    worker: true,
    env: { ...PUBLISHING_ENV, HERALD_PUBLISH_MAX_ATTEMPTS: '2' },
  });
  key = await t.key();
});
after(async () => {
  await t.close();
  await sandbox.close();
});

const requests = publishingRequests(() => ({ t, key, sandbox }));
const create = async (body: Record<string, unknown>) => (await requests.create(body)) as unknown as PostWithParts;
const settled = async (id: string, label: string) => (await requests.settled(id, label)) as unknown as PostWithParts;
const { held } = requests;

async function get(id: string): Promise<PostWithParts> {
  return (await t.inject({ url: `/v1/posts/${id}`, key })).json().data;
}

/** Adds a rule to a simulator's fault board through its control surface, as a load test would. */
async function addFault(platform: 'x' | 'mastodon', rule: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${sandbox.baseUrl(platform)}/_sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(rule),
  });
  assert.equal(res.status, 200, await res.text());
}

const statuses = (target: Target) => target.parts.map((p) => p.status);

/** When a part was recorded published, as the API writes times. */
async function publishedAt(targetId: string, position: number): Promise<string> {
  const { rows } = await t.container.pool.query(
    'SELECT published_at FROM target_parts WHERE target_id = $1 AND position = $2',
    [targetId, position],
  );
  return (rows[0].published_at as Date).toISOString();
}

/** Ends the rate-limit hold an earlier test left on the connections (each waits out a 60 s reset). */
async function unthrottle(): Promise<void> {
  await t.container.pool.query('UPDATE connections SET throttled_until = NULL');
}

async function eventTypes(postId: string): Promise<string[]> {
  const { rows } = await t.container.pool.query(`SELECT type FROM events WHERE data->>'id' = $1 ORDER BY id`, [postId]);
  return rows.map((r) => r.type);
}

describe('every part of a thread is visible', () => {
  test('a draft lists every part of its thread as pending, and a single post one part', async () => {
    const post = await create({
      content: 'Draft thread',
      platforms: ['x', 'linkedin'],
      platform_options: { x: { thread: ['two', 'three'] } },
    });
    const x = post.targets.find((target) => target.platform === 'x')!;
    assert.deepEqual(x.parts, [
      { index: 0, kind: 'post', status: 'pending', platform_post_id: null, url: null, error: null },
      { index: 1, kind: 'reply', status: 'pending', platform_post_id: null, url: null, error: null },
      { index: 2, kind: 'reply', status: 'pending', platform_post_id: null, url: null, error: null },
    ]);
    assert.equal(x.next_attempt_at, null);
    assert.deepEqual(statuses(post.targets.find((target) => target.platform === 'linkedin')!), ['pending']);
  });

  test('part 2 failing shows as failed with its error; a retry resumes from it and X holds one copy of each part', async () => {
    const text = `Parts ${Date.now()}`;
    const texts = [text, `${text} / 2`, `${text} / 3`];
    // The first create_post (part 1) goes through; part 2 fails on both of the target's attempts.
    await addFault('x', { fault: 'server_error', operation: 'create_post', skip: 1, times: 2 });
    const post = await create({
      content: text,
      platforms: ['x'],
      publish_now: true,
      platform_options: { x: { thread: texts.slice(1) } },
    });

    const waiting = await pollFor('thread waiting to retry its part 2', async () => {
      const target = (await get(post.id)).targets[0]!;
      return target.status === 'publishing' && target.attempt_count > 0 && target.next_attempt_at ? target : undefined;
    });
    assert.deepEqual(statuses(waiting), ['published', 'publishing', 'pending']);
    assert.ok(waiting.parts[1]!.error, 'the part being retried carries the last error');
    assert.deepEqual(waiting.parts[1]!.error, waiting.error);
    assert.equal(waiting.platform_post_id, waiting.parts[0]!.platform_post_id, 'part 0 is already on the target');

    const failed = await settled(post.id, 'thread failed on its part 2');
    // Part 1 is out: the post is not `failed` as if nothing had gone out.
    assert.equal(failed.status, 'partially_published');
    assert.equal(failed.published_at, await publishedAt(failed.targets[0]!.id, 0));
    const target = failed.targets[0]!;
    assert.deepEqual(statuses(target), ['published', 'failed', 'pending']);
    const first = (await held('x', text))[0]!;
    assert.deepEqual(target.parts[0], {
      index: 0,
      kind: 'post',
      status: 'published',
      platform_post_id: first.id,
      url: target.url,
      error: null,
    });
    assert.match(target.url!, /^http/);
    assert.deepEqual(target.parts[1]!.error, target.error);
    assert.match(target.error!.message, /^Part 2 of the thread/);
    assert.deepEqual(
      target.parts.slice(1).map((p) => [p.platform_post_id, p.url]),
      [
        [null, null],
        [null, null],
      ],
    );

    // The webhook payload is the same representation.
    const { rows } = await t.container.pool.query(
      `SELECT data FROM events WHERE type = 'post.partially_published' AND data->>'id' = $1`,
      [post.id],
    );
    assert.equal(rows.length, 1);
    assert.deepEqual(rows[0].data.targets[0].parts, target.parts);

    const retried = await t.inject({ method: 'POST', url: `/v1/posts/${post.id}/retry`, key });
    assert.equal(retried.statusCode, 200, retried.body);
    const done = await settled(post.id, 'thread completed by the retry');
    assert.equal(done.status, 'published');
    const parts = done.targets[0]!.parts;
    assert.deepEqual(statuses(done.targets[0]!), ['published', 'published', 'published']);
    const copies = await Promise.all(texts.map((part) => held('x', part)));
    assert.deepEqual(
      copies.map((c) => c.length),
      [1, 1, 1],
      'X holds exactly one copy of each part',
    );
    assert.deepEqual(
      parts.map((p) => p.platform_post_id),
      copies.map((c) => c[0]!.id),
    );
    assert.equal(copies[1]![0]!.replyTo, copies[0]![0]!.id);
    assert.equal(copies[2]![0]!.replyTo, copies[1]![0]!.id);
    assert.ok(parts.every((p) => p.url && p.error === null));
    assert.equal(parts[0]!.platform_post_id, done.targets[0]!.platform_post_id);

    // MCP's get_post returns the same parts.
    const mcp = await t.inject({
      method: 'POST',
      url: '/mcp',
      key,
      idem: false,
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_post', arguments: { post_id: post.id } },
      },
    });
    assert.equal(mcp.statusCode, 200, mcp.body);
    const body = mcp.body.startsWith('{') ? mcp.json() : JSON.parse(mcp.body.split('\ndata: ')[1]!.split('\n')[0]!);
    assert.deepEqual(body.result.structuredContent.targets[0].parts, parts);
    assert.match(body.result.content[0].text, /3\/3 parts published/);
  });

  test('a thread cancelled while its part 2 waits for a rate limit is partially_published, its part 1 visible', async () => {
    const text = `Cancelled thread ${Date.now()}`;
    await addFault('mastodon', { fault: 'rate_limited', operation: 'create_post', skip: 1, retryAfterSeconds: 60 });
    const post = await create({
      content: text,
      platforms: ['mastodon'],
      publish_now: true,
      platform_options: { mastodon: { thread: [`${text} / 2`, `${text} / 3`] } },
    });
    const waiting = await pollFor('thread held by the rate limit', async () => {
      const target = (await get(post.id)).targets[0]!;
      return target.status === 'publishing' && target.attempt_count > 0 && target.next_attempt_at ? target : undefined;
    });
    assert.deepEqual(statuses(waiting), ['published', 'publishing', 'pending']);
    assert.equal(waiting.parts[1]!.error!.code, 'PLATFORM_RATE_LIMITED');

    // The rate limit refused part 2 outright: nothing of it is on Mastodon, and its row is gone.
    const { rows } = await t.container.pool.query(
      'SELECT position, state FROM target_parts WHERE target_id = $1 ORDER BY position',
      [waiting.id],
    );
    assert.deepEqual(rows, [{ position: 0, state: 'published' }]);

    const res = await t.inject({ method: 'POST', url: `/v1/posts/${post.id}/cancel`, key });
    assert.equal(res.statusCode, 200, res.body);
    const cancelled: PostWithParts = res.json().data;
    assert.equal(cancelled.status, 'partially_published', 'part 1 is out: the post is not `cancelled`');
    assert.equal(cancelled.published_at, await publishedAt(waiting.id, 0));
    const target = cancelled.targets[0]!;
    assert.equal(target.status, 'cancelled');
    assert.deepEqual(statuses(target), ['published', 'cancelled', 'cancelled']);
    const first = (await held('mastodon', text))[0]!;
    assert.equal(target.parts[0]!.platform_post_id, first.id);
    assert.equal(target.platform_post_id, first.id, "the target shows its published part 0's id");
    assert.equal((await held('mastodon', `${text} / 2`)).length, 0);
    assert.deepEqual((await eventTypes(post.id)).slice(-2), ['post.partially_published', 'post.cancelled']);

    // Herald deletes nothing on the platforms: a post with a part out is not deleted as if nothing had gone out.
    const removed = await t.inject({ method: 'DELETE', url: `/v1/posts/${post.id}`, key });
    assert.equal(removed.statusCode, 409, removed.body);
    assert.equal(removed.json().error.code, 'PUBLIC_API_STATE_CONFLICT');
  });

  test('a post whose status was derived before parts counted is still not deleted while a part is out', async () => {
    const text = `Stored as cancelled ${Date.now()}`;
    await unthrottle();
    await addFault('mastodon', { fault: 'rate_limited', operation: 'create_post', skip: 1, retryAfterSeconds: 60 });
    const post = await create({
      content: text,
      platforms: ['mastodon'],
      publish_now: true,
      platform_options: { mastodon: { thread: [`${text} / 2`] } },
    });
    await pollFor('thread held by the rate limit on its part 2', async () => {
      const target = (await get(post.id)).targets[0]!;
      return statuses(target).join() === 'published,publishing' && target.next_attempt_at ? target : undefined;
    });
    assert.equal((await t.inject({ method: 'POST', url: `/v1/posts/${post.id}/cancel`, key })).statusCode, 200);
    // A row written by an earlier version, which called such a post `cancelled`.
    await t.container.pool.query(`UPDATE posts SET status = 'cancelled', published_at = NULL WHERE id = $1`, [post.id]);
    const removed = await t.inject({ method: 'DELETE', url: `/v1/posts/${post.id}`, key });
    assert.equal(removed.statusCode, 409, removed.body);
    assert.deepEqual(
      removed.json().error.details.map((d: { platform: string; rule: string }) => [d.platform, d.rule]),
      [['mastodon', 'published_part']],
    );
    assert.equal((await get(post.id)).id, post.id, 'the post is still there');
  });

  test('a target retried through a reconnected account takes its parts along, and never adopts what the old connection holds', async () => {
    const text = `Reconnected ${Date.now()}`;
    await unthrottle();
    // A: the text is published through the account's connection. B: the same text, whose sends answer 5xx on both
    // attempts, so it fails with its part still `sending` (a 5xx may have made the status).
    const a = await settled((await create({ content: text, platforms: ['mastodon'], publish_now: true })).id, 'A');
    assert.equal(a.status, 'published');
    const aStatus = a.targets[0]!.platform_post_id!;
    await addFault('mastodon', { fault: 'server_error', operation: 'create_post', times: 2 });
    const b = await settled((await create({ content: text, platforms: ['mastodon'], publish_now: true })).id, 'B');
    assert.equal(b.status, 'failed', JSON.stringify(b.targets[0]));
    const old = b.targets[0]!.connection_id!;
    const partConnection = async () =>
      (
        await t.container.pool.query('SELECT connection_id, state FROM target_parts WHERE target_id = $1', [
          b.targets[0]!.id,
        ])
      ).rows;
    assert.deepEqual(await partConnection(), [{ connection_id: old, state: 'sending' }]);

    // The account is disconnected and connected again: a new connection row for the same account.
    const renewed = `conn_${Date.now()}reconnected`;
    await t.container.pool.query(`UPDATE connections SET status = 'disconnected', is_default = false WHERE id = $1`, [
      old,
    ]);
    await t.container.pool.query(
      `INSERT INTO connections (id, workspace_id, brand_id, platform, sandbox, account_id, handle, display_name,
                                server_url, is_default, status, credentials, token_expires_at, settings)
       SELECT $2, workspace_id, brand_id, platform, sandbox, account_id, handle, display_name,
              server_url, true, 'active', credentials, token_expires_at, settings
         FROM connections WHERE id = $1`,
      [old, renewed],
    );

    const retried = await t.inject({ method: 'POST', url: `/v1/posts/${b.id}/retry`, key });
    assert.equal(retried.statusCode, 200, retried.body);
    const done = await settled(b.id, 'B retried through the new connection');
    const target = done.targets[0]!;
    assert.equal(target.connection_id, renewed);
    assert.deepEqual(await partConnection(), [{ connection_id: renewed, state: 'published' }], 'the part moved too');
    // B's look-up sees A's status (same text, made seconds before B's first send), which A holds through the old
    // connection of the same account: it is not B's.
    assert.equal(done.status, 'published');
    assert.notEqual(target.platform_post_id, aStatus, "B is not recorded with A's status");
    assert.equal((await held('mastodon', text)).length, 2, 'A and B, one status each');
  });
});
