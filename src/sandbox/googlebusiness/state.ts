// The Google Business Profile simulator's documents in the sandbox store (`kit.store`: PostgreSQL when Herald mounts it,
// memory in a standalone rig): the signed-in users (each with one business account and its locations, which follow
// from the user's name), local posts, spent codes and revoked tokens; and the context every route handler is given.
// Nothing lives only in memory, so a restart keeps every post and its URL, and every API node serves the same sandbox.
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import type { MediaFile } from '../meta/media-files.ts';

/** A Google user of the sandbox: the business account it manages and that account's locations. */
export interface GbpUser {
  username: string;
  /** `accounts/{id}`. */
  account: string;
  accountName: string;
  locations: GbpLocation[];
}

export interface GbpLocation {
  /** The Business Information name, `locations/{id}`. */
  name: string;
  title: string;
  locality: string;
}

export type LocalPostState = 'PROCESSING' | 'LIVE' | 'REJECTED';

/** A local post as the simulator keeps it; `name` is `accounts/{a}/locations/{l}/localPosts/{p}`. */
export interface GbpLocalPost {
  name: string;
  /** `accounts/{a}/locations/{l}`: the location the post is on (the connection's account id in Herald). */
  parent: string;
  localPostId: string;
  languageCode: string | null;
  summary: string;
  topicType: 'STANDARD' | 'EVENT' | 'OFFER';
  callToAction: { actionType: string; url?: string } | null;
  event: Record<string, unknown> | null;
  offer: Record<string, unknown> | null;
  media: MediaFile[];
  /** The source URLs as they were sent (the list answer gives Google's own copy's URL instead). */
  sourceUrls: string[];
  createdAt: number;
  /** When review ends: LIVE (or REJECTED when `rejection` is set) from then on. */
  reviewedAt: number;
  rejection: string | null;
  deleted: boolean;
}

export const KIND = {
  /** By username: the user's account and locations, written at sign-in (the post page reads titles from it). */
  user: 'user',
  /** By localPostId, owned by the location (`parent`): `list(KIND.post, { owner })` lists a location's posts. */
  post: 'post',
  /** jti of authorization codes already exchanged (single use: `insert`). */
  spentCode: 'spent-code',
  /** jti of revoked access and refresh tokens. */
  revoked: 'revoked',
} as const;

/** What every route handler works with: the kit (its store holds the state) and Google's error body. */
export interface GbpContext {
  kit: SimulatorKit;
  errorReply: PlatformSimulator['errorReply'];
  /** Where the simulator is mounted (`/sandbox/googlebusiness` in Herald), for the URLs it hands out. */
  prefix: string;
}

/** The post's state at `now`: PROCESSING until reviewed, then LIVE or REJECTED. */
export function stateOf(post: GbpLocalPost, now: number): LocalPostState {
  if (now < post.reviewedAt) return 'PROCESSING';
  return post.rejection ? 'REJECTED' : 'LIVE';
}
