// How the X simulator writes a post: its place in its thread first (a post's page reads its thread's parts, not its
// author's history), then the post; and the claim on its text that X's duplicate check is (one document per author
// and text, docs/platforms/x.md "Errors"), taken before the post is written so two identical posts sent at once on
// any nodes are one post and one 403.
import type { SimulatorKit } from '../framework/simulator.ts';
import { KIND, textClaimId, threadKey, type XTextClaim, type XThreadPart, type XTweet } from './state.ts';

const DUPLICATE_WINDOW_MS = 24 * 3600_000; // ⚠ unverified: X does not document how far back duplicate detection looks

/** Writes a post and its place in its thread (the part first: a page skips a part whose post is not written). */
export async function writeTweet(kit: SimulatorKit, tweet: XTweet): Promise<void> {
  await kit.store.insert<XThreadPart>(
    KIND.threadPart,
    tweet.id,
    { id: tweet.id },
    threadKey(tweet.authorId, tweet.conversationId),
  );
  // `insert`: a post already written (by the request that met its claim first) is never overwritten.
  await kit.store.insert(KIND.tweet, tweet.id, tweet, tweet.authorId);
}

/**
 * Claims the author's text for `tweet`: whether it holds the claim afterwards — it does unless a live post of the
 * same text (younger than the duplicate window, not deleted) holds it. An expired claim, or one whose post was
 * deleted, is taken over atomically, so of two requests only one gets it. A claim whose post is not in the store
 * (its node stopped between the claim and the post, or is writing it now) has its post written from the claim,
 * which carries it whole: that post stands, as it would have.
 */
export async function claimText(kit: SimulatorKit, tweet: XTweet): Promise<boolean> {
  const { store } = kit;
  const id = textClaimId(tweet.authorId, tweet.submitted);
  const mine: XTextClaim = { tweet };
  const now = kit.now();
  // A few rounds at most: each one ends unless another request changed the claim in between.
  for (let round = 0; round < 3; round++) {
    if (await store.insert<XTextClaim>(KIND.textClaim, id, mine, tweet.authorId)) return true;
    const held = await store.update<XTextClaim>(KIND.textClaim, id, (claim) =>
      claim.tweet.createdAt <= now - DUPLICATE_WINDOW_MS ? mine : undefined,
    );
    if (!held) continue; // removed in between (a reset): claim it afresh
    const holder = held.tweet;
    if (holder.id === tweet.id) return true;
    const post = await store.get<XTweet>(KIND.tweet, holder.id);
    if (!post) await writeTweet(kit, holder);
    if (!post || !post.deleted) return false;
    const after = await store.update<XTextClaim>(KIND.textClaim, id, (claim) =>
      claim.tweet.id === holder.id ? mine : undefined,
    );
    if (after?.tweet.id === tweet.id) return true;
  }
  return false;
}
