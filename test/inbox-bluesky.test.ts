// Bluesky's inbox against its simulator (docs/inbox.md "Platforms"): replies, replies in a thread, mentions and
// quotes are read from listNotifications once each (a second pass and a lost cursor double nothing), with the uri
// and cid of the item and its thread root kept in platform_ref; an answer is a post replying to the item with the
// right reply refs, and the platform's faults come back as data (deleted item, rate limit, outage).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sendPlatformReply } from '../src/features/inbox/platform-reply.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './helpers/app.ts';
import { handleOf, inboxPoller, inboxRows } from './helpers/inbox-ingest.ts';
import { PUBLISHING_ENV, publishingRequests } from './helpers/publishing.ts';

let sandbox: RunningSandbox;
let t: TestApp;
let key: string;
let postUri: string;
let postId: string;

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildTestApp({ sandboxUrl: sandbox.url, worker: true, env: PUBLISHING_ENV });
  key = await t.key();
  const { create, settled } = publishingRequests(() => ({ t, key, sandbox }));
  const text = `Bluesky inbox ${Date.now()}`;
  const post = await settled((await create({ content: text, platforms: ['bluesky'], publish_now: true })).id, text);
  assert.equal(post.status, 'published');
  postId = post.id;
  postUri = post.targets.find((x) => x.platform === 'bluesky')!.platform_post_id!;
});
after(async () => {
  await t.close();
  await sandbox.close();
});

const { ingest, replyDeps, connection, sim, injectOne, ingested } = inboxPoller('bluesky', () => ({ t, sandbox }));

describe('bluesky inbox', () => {
  test('replies, thread replies, mentions and quotes are ingested once, by kind, with their refs', async () => {
    const account = await handleOf(t, connection());
    const comments = await injectOne('comment', { post_id: postUri, text: 'Nice one' });
    const replies = await injectOne('reply', { post_id: postUri, parent_id: comments[0]!, text: 'Agreed' });
    const mentions = await injectOne('mention', { text: 'Ask them' });
    const quotes = await injectOne('mention', { post_id: postUri, text: 'Quoting this' });
    await ingest();
    const rows = await inboxRows(t, connection());
    const by = (uri: string) => rows.find((r) => r.platform_item_id === uri)!;
    const comment = by(comments[0]!);
    assert.equal(comment.kind, 'comment');
    assert.equal(comment.post_id, postId, 'linked to the Herald post by its uri');
    assert.equal(comment.thread_id, postUri);
    assert.equal(comment.parent_id, postUri);
    assert.equal(comment.text, 'Nice one');
    const reply = by(replies[0]!);
    assert.equal(reply.kind, 'reply');
    assert.equal(reply.parent_id, comments[0]);
    assert.equal(reply.thread_id, postUri);
    const mention = by(mentions[0]!);
    assert.equal(mention.kind, 'mention');
    assert.equal(mention.text, `@${account} Ask them`);
    assert.equal(mention.post_id, null);
    const quote = by(quotes[0]!);
    assert.equal(quote.kind, 'mention');
    assert.equal(quote.platform_post_id, postUri);
    const { rows: refs } = await t.container.pool.query<{ platform_ref: Record<string, string> }>(
      `SELECT platform_ref FROM inbox_items WHERE connection_id = $1 AND platform_item_id = $2`,
      [connection(), replies[0]],
    );
    assert.equal(refs[0]!.platform_ref.uri, replies[0]);
    assert.equal(refs[0]!.platform_ref.root_uri, postUri);
    assert.ok(refs[0]!.platform_ref.cid && refs[0]!.platform_ref.root_cid);

    const count = rows.length;
    await ingest();
    assert.equal((await inboxRows(t, connection())).length, count, 'a second pass creates nothing');
    await t.container.pool.query(`UPDATE inbox_sources SET cursor = NULL WHERE connection_id = $1`, [connection()]);
    await ingest();
    assert.equal((await inboxRows(t, connection())).length, count, 'nothing doubled after the cursor was lost');
  });

  test('more than a page is read in one poll, page by page', async () => {
    const before = (await inboxRows(t, connection())).length;
    await sim().inject({ account: await handleOf(t, connection()), kind: 'comment', post_id: postUri, count: 120 });
    await ingest();
    assert.equal((await inboxRows(t, connection())).length, before + 120);
  });

  test('DMs and reviews are refused by the control switch (Herald reads no Bluesky chat)', async () => {
    const account = await handleOf(t, connection());
    for (const kind of ['dm', 'review'] as const) {
      const result = await sim().inject({ account, kind });
      assert.ok('error' in result);
    }
  });

  test('an answer is a post replying to the item, under its thread root', async () => {
    const [uri] = await injectOne('reply', {
      post_id: postUri,
      parent_id: (await injectOne('comment', { post_id: postUri }))[0]!,
    });
    const item = await ingested(uri!);
    const text = `Thanks! ${Date.now()}`;
    const result = await sendPlatformReply(replyDeps(), item, text);
    assert.ok(result.ok, JSON.stringify(result));
    const answer = (await sim().posts()).find((p) => p.id === result.platformReplyId)!;
    assert.equal(answer.replyTo, uri);
    assert.equal(answer.text, text);
  });

  test('a deleted item is the rule item_deleted; a rate limit and an outage are retryable', async () => {
    const [uri] = await injectOne('comment', { post_id: postUri, text: 'Delete me' });
    const item = await ingested(uri!);
    sim().faults.add({ fault: 'item_deleted', operation: 'create_post' });
    const deleted = await sendPlatformReply(replyDeps(), item, 'Too late');
    assert.ok(!deleted.ok && deleted.rule === 'item_deleted' && !deleted.retryable, JSON.stringify(deleted));
    sim().faults.add({ fault: 'rate_limited', operation: 'create_post', retryAfterSeconds: 5 });
    const limited = await sendPlatformReply(replyDeps(), item, 'Now?');
    assert.ok(!limited.ok && limited.retryable && limited.code === 'PLATFORM_RATE_LIMITED', JSON.stringify(limited));
    sim().faults.add({ fault: 'server_error', operation: 'create_post' });
    const down = await sendPlatformReply(replyDeps(), item, 'And now?');
    assert.ok(!down.ok && down.retryable, JSON.stringify(down));
    const priv = await sendPlatformReply(replyDeps(), item, 'DM', { private: true });
    assert.ok(!priv.ok && priv.rule === 'private_reply_unsupported');
  });
});
