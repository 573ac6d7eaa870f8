// Publishing a local post and following it to the end of Google's review (docs/platforms/googlebusiness.md "Calls",
// "Idempotency"): the create call publishes; the post is PROCESSING, then LIVE or REJECTED, read back with
// localPosts.get until it leaves PROCESSING. The create is the only call that can make the post, so everything after
// it reports an unknown outcome rather than a refusal of its own (the engine then looks the part up instead of sending
// it again), except REJECTED: the rejected post is deleted and the part refused as content. The look-up follows a
// post it finds in review the same way, and answers a rejected one with the same refusal. Google has no
// idempotency key: the look-up lists the location's posts (newest first) and matches the part's summary, topic
// type, photo count and creation time (lookup.ts).
// The review wait (10 minutes at most) runs inside the publish job, whose claim holds as long as its worker is alive
// (heartbeats, src/jobs/liveness.ts): a worker that dies mid-review leaves the part to the look-up.
import { sleep } from '../classify.ts';
import { lookupSince, mayBeThisPart, sameMedia } from '../lookup.ts';
import {
  isPlatformError,
  PlatformError,
  type OutgoingPart,
  type PlatformSession,
  type PublishedPart,
} from '../types.ts';
import * as client from './client.ts';
import type { GooglebusinessOptions } from './limits.ts';
import { localPostId, topicOf } from './map.ts';
import type { LocationSettings } from './oauth.ts';

/** How long Herald follows a post in review (⚠ unverified: Google gives no figure) before leaving it to the look-up. */
export const REVIEW_DEADLINE_MS = 10 * 60_000;
const FIRST_POLL_MS = 250;
const MAX_POLL_MS = 5_000;
/**
 * The summary as the look-up compares it: ⚠ unverified whether Google trims or normalises what it stores, so both
 * sides are compared NFC-normalised and trimmed.
 */
const comparable = (text: string) => text.normalize('NFC').trim();
/** Pages of 100 posts a look-up reads at most. */
const LOOKUP_PAGES = 5;

/** The location a connection publishes to: `accounts/{a}/locations/{l}` (its settings, else its account id). */
export function locationOf(session: PlatformSession): string {
  const s = session.connection.settings as Partial<LocationSettings>;
  return s.account && s.location ? `${s.account}/${s.location}` : session.connection.accountId;
}

/** The post's web address: its Google Search link once LIVE, else the location's posts (⚠ unverified URL). */
export function postUrl(session: PlatformSession, post: client.LocalPost): string {
  if (post.searchUrl) return post.searchUrl;
  if (session.connection.sandbox) return `${session.connection.baseUrl}/p/${localPostId(post.name)}`;
  const location = locationOf(session);
  return `https://business.google.com/posts/l/${location.slice(location.lastIndexOf('/') + 1)}`;
}

function unknown(name: string, why: string, cause?: unknown): PlatformError {
  return new PlatformError(
    'unknown_outcome',
    'PLATFORM_UNKNOWN_OUTCOME',
    `Google Business Profile created local post ${name}, but ${why}; Herald looks it up before sending again.`,
    isPlatformError(cause) ? { platformStatus: cause.platformStatus, platformBody: cause.platformBody } : {},
  );
}

/**
 * Reads a post until Google's review ends (LIVE or REJECTED). Only GETs: a read that fails, or a review still going
 * at the deadline, is an unknown outcome of the create that made the post.
 */
async function reviewed(session: PlatformSession, post: client.LocalPost): Promise<client.LocalPost> {
  const deadline = Date.now() + REVIEW_DEADLINE_MS;
  for (let wait = FIRST_POLL_MS; post.state === 'PROCESSING';) {
    if (Date.now() > deadline)
      throw unknown(post.name, `it was still in review after ${REVIEW_DEADLINE_MS / 60_000} minutes`);
    await sleep(wait);
    wait = Math.min(MAX_POLL_MS, wait * 2);
    try {
      post = await client.getLocalPost(session.http, session.credentials.accessToken, post.name);
    } catch (error) {
      throw unknown(post.name, `reading its review state failed (${(error as Error).message})`, error);
    }
  }
  return post;
}

/** The refusal of a post Google rejected in review. */
const rejected = () =>
  new PlatformError(
    'invalid_content',
    'PLATFORM_CONTENT_REJECTED',
    `Google rejected the local post in review (state REJECTED): it breaks a Business Profile content policy (a phone number in the text, prohibited content or links). Edit the post and publish again.`,
  );

/**
 * Follows a created post through review: the LIVE post, or a refusal when Google rejected it. A rejected post is not
 * live (`LocalPostState`: only LIVE appears in search results); it is deleted so that the refusal means what the
 * adapter contract says (nothing of the part stays). The delete names the post this create made, so it can remove
 * nothing else; if it fails, the rejected post stays out of search results, and look-ups never adopt it as published.
 */
export async function followReview(session: PlatformSession, created: client.LocalPost): Promise<PublishedPart> {
  const post = await reviewed(session, created);
  if (post.state === 'REJECTED') {
    await client.deleteLocalPost(session.http, session.credentials.accessToken, post.name).catch(() => undefined);
    throw rejected();
  }
  return { id: post.name, url: postUrl(session, post) };
}

/** The part's post among the location's, if Google holds one that is provably this part's; the oldest of several. */
export async function lookUp(session: PlatformSession, part: OutgoingPart): Promise<PublishedPart | null> {
  const location = locationOf(session);
  const topic = topicOf(part.options as GooglebusinessOptions);
  const since = lookupSince(part);
  const wanted = comparable(part.text);
  const matches: Array<{ post: client.LocalPost; at: number }> = [];
  let pageToken: string | undefined;
  for (let page = 0; page < LOOKUP_PAGES; page++) {
    const listed = await client.listLocalPosts(session.http, session.credentials.accessToken, location, pageToken);
    for (const post of listed.localPosts) {
      const at = post.createTime ? Date.parse(post.createTime) : undefined;
      if (
        comparable(post.summary ?? '') === wanted &&
        (post.topicType ?? 'STANDARD') === topic &&
        sameMedia(part, { count: post.media?.length ?? 0 }) &&
        mayBeThisPart(part, { id: post.name, createdAt: at })
      )
        matches.push({ post, at: at! });
    }
    // Newest first (⚠ unverified order): a page that ends before the part's send holds nothing older to find.
    const last = listed.localPosts.at(-1)?.createTime;
    if (!listed.nextPageToken || (last !== undefined && Date.parse(last) < since)) break;
    pageToken = listed.nextPageToken;
  }
  // A post in review is followed to its end (reads only): adopting it while PROCESSING would report published a post
  // Google may still reject. A rejected one is the part's answer (a refusal: sending it again would make a second
  // post for Google to reject); it is left where it is, out of search results, as a look-up changes nothing. One that
  // is not rejected wins over a rejected one (a rejected post whose delete failed, made just before this part's send).
  const oldest = (list: typeof matches) => list.reduce((a, b) => (b.at < a.at ? b : a)).post;
  const standing = matches.filter((m) => m.post.state !== 'REJECTED');
  if (standing.length === 0) {
    if (matches.length > 0) throw rejected();
    return null;
  }
  const post = await reviewed(session, oldest(standing));
  if (post.state === 'REJECTED') throw rejected();
  return { id: post.name, url: postUrl(session, post) };
}
