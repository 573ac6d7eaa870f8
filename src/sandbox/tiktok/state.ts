// The TikTok simulator's documents in the sandbox store (`kit.store`: PostgreSQL when Herald mounts it, memory in a
// standalone rig): accounts, publishes (one per `publish_id`: the post's info, its source, how far its upload got,
// when it finishes and how), spent codes, revoked and rotated tokens, and the per-day posting counters of the
// unaudited-client rules. Nothing lives only in memory, so a restart keeps every publish and its URL, ids are never
// handed out twice, and every API node of a deployment serves the same sandbox.
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import type { MediaFile } from '../meta/media-files.ts';

export interface TiktokAccount {
  /** TikTok's `open_id`: the user as this app knows them. */
  id: string;
  username: string;
  name: string;
}

export const PRIVACY_LEVELS = [
  'PUBLIC_TO_EVERYONE',
  'MUTUAL_FOLLOW_FRIENDS',
  'FOLLOWER_OF_CREATOR',
  'SELF_ONLY',
] as const;
export type PrivacyLevel = (typeof PRIVACY_LEVELS)[number];

/** One `publish_id`: a Direct Post of a video (FILE_UPLOAD or PULL_FROM_URL) or of photos (PULL_FROM_URL). */
export interface TiktokPublish {
  id: string;
  accountId: string;
  mediaType: 'VIDEO' | 'PHOTO';
  source: 'FILE_UPLOAD' | 'PULL_FROM_URL';
  /** The caption of a video; the title of a photo post. */
  title: string;
  /** A photo post's caption. */
  description: string;
  privacyLevel: PrivacyLevel;
  disableComment: boolean;
  disableDuet: boolean;
  disableStitch: boolean;
  /** FILE_UPLOAD: the declared size and chunking, and how many bytes (whole chunks, in order) arrived. */
  videoSize: number;
  chunkSize: number;
  totalChunks: number;
  uploadedBytes: number;
  /** PULL_FROM_URL: bytes TikTok read from the URLs. */
  downloadedBytes: number;
  /** When the media was all in (upload's last chunk, or the pull); null while uploading. */
  receivedAt: number | null;
  /** How long processing and moderation take after that. */
  processingMs: number;
  /** The reason processing ends in (FAILED), or null when it succeeds. */
  failReason: string | null;
  /** The post's id, handed out only once it is published (`publicaly_available_post_id`). */
  postId: string;
  media: MediaFile[];
  createdAt: number;
  /** When the upload URL stops taking chunks (an hour after init). */
  uploadExpiresAt: number;
  /** What the first chunk's faults decided: processing ends in this reason, and takes this much longer. */
  plannedFail: string | null;
  extraProcessingMs: number;
  /** post_mode MEDIA_UPLOAD: the content goes to the creator's inbox, not to the profile. */
  inbox: boolean;
}

/** The store's kinds. */
export const KIND = {
  account: 'account',
  /** Owned by the account: `list(KIND.publish, { owner })` finds an account's publishes. */
  publish: 'publish',
  /** A published post's id → its publish id (the post page and the video query read by post id). */
  postIndex: 'post-index',
  /** jti of authorization codes already exchanged (single use: `insert`). */
  spentCode: 'spent-code',
  /** jti of revoked access tokens, and of refresh tokens used once (rotation: `insert`). */
  revoked: 'revoked',
  /** `day:<yyyy-mm-dd>` → the accounts that posted through the app that day (the unaudited active-user cap). */
  activeUsers: 'active-users',
  /** `<account>:<yyyy-mm-dd>` → how many publishes the account started that day (the daily posting cap). */
  dailyPosts: 'daily-posts',
} as const;

/** The blob of one uploaded chunk. */
export const chunkBlob = (publishId: string, index: number) => `chunk:${publishId}:${index}`;

/** What every route handler works with: the kit (its store holds the state) and TikTok's error body. */
export interface TiktokContext {
  kit: SimulatorKit;
  errorReply: PlatformSimulator['errorReply'];
  /** Where the simulator is mounted (`/sandbox/tiktok` in Herald), for the URLs it hands out. */
  prefix: string;
}

/** The simulator's switches (`settings`): the unaudited-client rules, and the per-creator daily posting cap. */
export interface TiktokSettings {
  /** An unaudited API client: SELF_ONLY posts only, and at most `activeUserCap` users posting per day. */
  unaudited: boolean;
  activeUserCap: number;
  dailyPostCap: number;
}

export function tiktokSettings(kit: SimulatorKit): TiktokSettings {
  const s = kit.settings;
  const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : d);
  return {
    unaudited: s.tiktokUnaudited === true,
    // ⚠ unverified: 5 users per 24 h is TikTok's content-sharing guidelines figure; 15 posts a day is secondary.
    activeUserCap: num(s.tiktokActiveUserCap, 5),
    dailyPostCap: num(s.tiktokDailyPostCap, 15),
  };
}

/** The publish's status at `now`, as `/v2/post/publish/status/fetch/` reports it. */
export function statusOf(p: TiktokPublish, now: number): string {
  if (p.receivedAt === null) return p.failReason ? 'FAILED' : 'PROCESSING_UPLOAD';
  if (now < p.receivedAt + p.processingMs)
    return p.source === 'FILE_UPLOAD' ? 'PROCESSING_UPLOAD' : 'PROCESSING_DOWNLOAD';
  if (p.failReason) return 'FAILED';
  return p.inbox ? 'SEND_TO_USER_INBOX' : 'PUBLISH_COMPLETE';
}
