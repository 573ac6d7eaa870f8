// Instagram's inbox against its simulator (docs/inbox.md "Platforms"): comments on the account's media and the
// replies under them are read once each (a second pass and a lost cursor double nothing); an answer is a reply to
// the comment (to its top-level comment for a reply), and the platform's faults come back as data (deleted comment,
// rate limit, outage). The media is written into the simulator directly: publishing is tested elsewhere.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sendPlatformReply } from '../src/features/inbox/platform-reply.ts';
import { edgeOwner, shortcodeOf } from '../src/sandbox/meta/publishing.ts';
import type { IgComment, IgMedia } from '../src/sandbox/instagram/state.ts';
import { startSandbox, type RunningSandbox } from '../src/sandbox/server.ts';
import { buildTestApp, sandboxSecret, type TestApp } from './helpers/app.ts';
import { handleOf, inboxPoller, inboxRows } from './helpers/inbox-ingest.ts';

let sandbox: RunningSandbox;
let t: TestApp;
let mediaId: string;

before(async () => {
  sandbox = await startSandbox({ secret: sandboxSecret() });
  t = await buildTestApp({ sandboxUrl: sandbox.url, worker: false });
  const { rows } = await t.container.pool.query<{ account_id: string; handle: string }>(
    `SELECT account_id, handle FROM connections WHERE id = $1`,
    [t.connections.instagram],
  );
  const owner = rows[0]!.account_id;
  mediaId = `1799${Date.now()}`;
  const media: IgMedia = {
    id: mediaId,
    owner,
    containerId: '',
    caption: 'A photo',
    mediaType: 'IMAGE',
    productType: 'FEED',
    edge: 'media',
    username: rows[0]!.handle.replace(/^@/, ''),
    shortcode: shortcodeOf(mediaId),
    items: 1,
    media: [],
    timestamp: Date.now(),
    commentCount: 0,
    deleted: false,
  };
  await sandbox.simulator('instagram').kit.store.put('media', mediaId, media, edgeOwner(owner, 'media'));
});
after(async () => {
  await t.close();
  await sandbox.close();
});

const { ingest, replyDeps, connection, sim, injectOne, ingested } = inboxPoller('instagram', () => ({ t, sandbox }));

describe('instagram inbox', () => {
  test('comments and replies are ingested once, by kind', async () => {
    const comments = await injectOne('comment', { post_id: mediaId, text: 'Nice one' });
    const replies = await injectOne('reply', { post_id: mediaId, parent_id: comments[0]!, text: 'Agreed' });
    await ingest();
    const rows = await inboxRows(t, connection());
    const by = (id: string) => rows.find((r) => r.platform_item_id === id)!;
    const comment = by(comments[0]!);
    assert.equal(comment.kind, 'comment');
    assert.equal(comment.platform_post_id, mediaId);
    assert.equal(comment.parent_id, mediaId);
    assert.equal(comment.text, 'Nice one');
    assert.ok(comment.author.username);
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

  test('mentions, DMs and reviews are refused by the control switch (Herald reads none on Instagram)', async () => {
    const account = await handleOf(t, connection());
    for (const kind of ['mention', 'dm', 'review'] as const) {
      const result = await sim().inject({ account, kind });
      assert.ok('error' in result);
    }
  });

  test('an answer to a reply goes under its top-level comment; the own reply comes back as from_account', async () => {
    const [top] = await injectOne('comment', { post_id: mediaId, text: 'Question' });
    const [id] = await injectOne('reply', { post_id: mediaId, parent_id: top!, text: 'Same question' });
    const item = await ingested(id!);
    const text = `Answer ${Date.now()}`;
    const result = await sendPlatformReply(replyDeps(), item, text);
    assert.ok(result.ok, JSON.stringify(result));
    const stored = await sim().kit.store.get<IgComment>('comment', result.platformReplyId);
    assert.equal(stored?.parentId, top);
    assert.equal(stored?.text, text);
    await ingest();
    const own = (await inboxRows(t, connection())).find((r) => r.platform_item_id === result.platformReplyId)!;
    assert.equal(own.from_account, true);
  });

  test('a deleted comment is the rule item_deleted; a rate limit and an outage are retryable', async () => {
    const [id] = await injectOne('comment', { post_id: mediaId, text: 'Delete me' });
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
