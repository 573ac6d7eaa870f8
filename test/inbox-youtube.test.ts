// YouTube's inbox against its simulator (docs/inbox.md "Platforms"): comment threads on the channel's videos,
// ingested once with a cursor, answered with comments.insert (parentId), with the simulator's faults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sendPlatformReply } from '../src/features/inbox/platform-reply.ts';
import { findItem } from '../src/features/inbox/inbox.repo.ts';
import type { YoutubeVideo } from '../src/sandbox/youtube/state.ts';
import { inboxRows } from './helpers/inbox-ingest.ts';
import { inboxPlatformSuite } from './helpers/inbox-platform.ts';

inboxPlatformSuite({
  platform: 'youtube',
  kind: 'comment',
  refused: 'dm',
  stream: 'comments',
  // A processed video on the connection's channel, written into the simulator's store (no upload needed here).
  async prepare({ sandbox, accountId }) {
    const id = `vid${Date.now().toString(36)}`;
    const now = Date.now();
    const video: YoutubeVideo = {
      id,
      channelId: accountId,
      sessionId: `s-${id}`,
      metadata: {
        title: 'Inbox',
        description: 'Comments welcome',
        tags: [],
        categoryId: '22',
        privacyStatus: 'public',
        selfDeclaredMadeForKids: false,
      },
      contentType: 'video/mp4',
      size: 1,
      createdAt: now,
      processedAt: now,
      failed: false,
      deleted: false,
    };
    await sandbox.simulator('youtube').kit.store.put('video', id, video, accountId);
    return { account: 'unused', postId: id };
  },
  extra({ ctx, target, pass, deps, ingestOne }) {
    /** Units spent in this sandbox (its one channel, one project). */
    const spent = async () =>
      (await ctx.sandbox.simulator('youtube').kit.store.list<{ units: number }>('quota', {})).reduce(
        (sum, d) => sum + d.units,
        0,
      );

    test('a reply in a thread is ingested as a reply; answering it replies to the top-level comment', async () => {
      const top = await ingestOne('Top-level question');
      const injected = await ctx.sandbox.simulator('youtube').inject({
        account: 'unused',
        kind: 'reply',
        post_id: target().postId,
        parent_id: top.platformItemId,
        text: 'Me too',
      });
      assert.ok('ids' in injected, JSON.stringify(injected));
      await pass();
      const row = (await inboxRows(ctx.t, ctx.connectionId)).find((r) => r.platform_item_id === injected.ids[0])!;
      assert.equal(row.kind, 'reply');
      assert.equal(row.thread_id, top.platformItemId);
      assert.equal(row.parent_id, top.platformItemId);
      const item = (await findItem(ctx.t.container.pool, ctx.t.owner.workspaceId, row.id))!;
      const result = await sendPlatformReply(deps(), item, 'Thanks both');
      assert.ok(result.ok, JSON.stringify(result));
      const answer = (await ctx.sandbox.simulator('youtube').posts()).find((p) => p.id === result.platformReplyId)!;
      assert.equal(answer.replyTo, top.platformItemId);
    });

    test('the quota is charged: 1 unit a listed page, 50 an answer', async () => {
      const item = await ingestOne('Quota?');
      const before = await spent();
      const result = await sendPlatformReply(deps(), item, 'Fifty units');
      assert.ok(result.ok, JSON.stringify(result));
      assert.equal((await spent()) - before, 50);
      const listed = await spent();
      await pass();
      assert.equal((await spent()) - listed, 1, 'one page read');
    });
  },
});
