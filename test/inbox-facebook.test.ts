// Facebook's inbox against its simulator (docs/inbox.md "Platforms"): comments on the Page's posts and replies
// under them are read once each (a second pass and a lost cursor double nothing); an answer is a comment on the
// item as the Page, and the platform's faults come back as data (deleted comment, rate limit, outage).
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
let pagePostId: string;
let postId: string;

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildTestApp({ sandboxUrl: sandbox.url, worker: true, env: PUBLISHING_ENV });
  key = await t.key();
  const { create, settled } = publishingRequests(() => ({ t, key, sandbox }));
  const text = `Facebook inbox ${Date.now()}`;
  const post = await settled((await create({ content: text, platforms: ['facebook'], publish_now: true })).id, text);
  assert.equal(post.status, 'published');
  postId = post.id;
  pagePostId = post.targets.find((x) => x.platform === 'facebook')!.platform_post_id!;
});
after(async () => {
  await t.close();
  await sandbox.close();
});

const { ingest, replyDeps, connection, sim, injectOne, ingested } = inboxPoller('facebook', () => ({ t, sandbox }));

describe('facebook inbox', () => {
  test('comments and replies are ingested once, by kind, linked to the post', async () => {
    const comments = await injectOne('comment', { post_id: pagePostId, text: 'Nice one' });
    const replies = await injectOne('reply', { post_id: pagePostId, parent_id: comments[0]!, text: 'Agreed' });
    await ingest();
    const rows = await inboxRows(t, connection());
    const by = (id: string) => rows.find((r) => r.platform_item_id === id)!;
    const comment = by(comments[0]!);
    assert.equal(comment.kind, 'comment');
    assert.equal(comment.post_id, postId, 'linked to the Herald post');
    assert.equal(comment.parent_id, pagePostId);
    assert.equal(comment.text, 'Nice one');
    const reply = by(replies[0]!);
    assert.equal(reply.kind, 'reply');
    assert.equal(reply.parent_id, comments[0]);

    const count = rows.length;
    await ingest();
    assert.equal((await inboxRows(t, connection())).length, count, 'a second pass creates nothing');
    await t.container.pool.query(`UPDATE inbox_sources SET cursor = NULL WHERE connection_id = $1`, [connection()]);
    await ingest();
    assert.equal((await inboxRows(t, connection())).length, count, 'nothing doubled after the cursor was lost');
  });

  test('more than a page of comments is read in one poll', async () => {
    const before = (await inboxRows(t, connection())).length;
    await sim().inject({ account: await handleOf(t, connection()), kind: 'comment', post_id: pagePostId, count: 130 });
    await ingest();
    assert.equal((await inboxRows(t, connection())).length, before + 130);
  });

  test('mentions, DMs and reviews are refused by the control switch', async () => {
    const account = await handleOf(t, connection());
    for (const kind of ['mention', 'dm', 'review'] as const)
      assert.ok('error' in (await sim().inject({ account, kind })));
  });

  test('an answer is a comment reply as the Page, ingested back as from_account', async () => {
    const [id] = await injectOne('comment', { post_id: pagePostId, text: 'Open today?' });
    const item = await ingested(id!);
    const result = await sendPlatformReply(replyDeps(), item, 'Until 6 pm.');
    assert.ok(result.ok, JSON.stringify(result));
    await ingest();
    const own = (await inboxRows(t, connection())).find((r) => r.platform_item_id === result.platformReplyId)!;
    assert.equal(own.from_account, true);
    assert.equal(own.kind, 'reply');
    assert.equal(own.parent_id, id);
  });

  test('a deleted comment is the rule item_deleted; a rate limit and an outage are retryable', async () => {
    const [id] = await injectOne('comment', { post_id: pagePostId, text: 'Delete me' });
    const item = await ingested(id!);
    sim().faults.add({ fault: 'item_deleted', operation: 'create_comment' });
    const deleted = await sendPlatformReply(replyDeps(), item, 'Too late');
    assert.ok(!deleted.ok && deleted.rule === 'item_deleted' && !deleted.retryable, JSON.stringify(deleted));
    sim().faults.add({ fault: 'rate_limited', operation: 'create_comment', retryAfterSeconds: 5 });
    const limited = await sendPlatformReply(replyDeps(), item, 'Now?');
    assert.ok(!limited.ok && limited.retryable, JSON.stringify(limited));
    sim().faults.add({ fault: 'server_error', operation: 'create_comment' });
    const down = await sendPlatformReply(replyDeps(), item, 'And now?');
    assert.ok(!down.ok && down.retryable, JSON.stringify(down));
    const priv = await sendPlatformReply(replyDeps(), item, 'DM', { private: true });
    assert.ok(!priv.ok && priv.rule === 'private_reply_unsupported');
  });
});
