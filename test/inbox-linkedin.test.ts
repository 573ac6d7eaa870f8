// LinkedIn's inbox against its simulator (docs/inbox.md "Platforms"): comments on the connection's recent posts,
// ingested once with per-post offsets, answered as a reply to the comment, with the simulator's faults.
import assert from 'node:assert/strict';
import { inboxPlatformSuite } from './helpers/inbox-platform.ts';
import { publishingRequests } from './helpers/publishing.ts';

inboxPlatformSuite({
  platform: 'linkedin',
  kind: 'comment',
  refused: 'dm',
  stream: 'comments',
  // A post published through Herald: its comments are linked to it.
  async prepare(ctx) {
    const { create, settled } = publishingRequests(() => ctx);
    const text = `Inbox on LinkedIn ${Date.now()}`;
    const post = await settled((await create({ content: text, platforms: ['linkedin'], publish_now: true })).id, text);
    assert.equal(post.status, 'published');
    const postId = post.targets[0]!.platform_post_id!;
    return { account: 'unused', postId, heraldPostId: post.id };
  },
});
