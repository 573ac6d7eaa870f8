// The Pinterest simulator's documents in the sandbox store (`kit.store`: PostgreSQL when Herald mounts it, memory in a
// standalone rig): accounts, Pins (each owned by its board), registered media uploads (their bytes as blobs), spent
// codes and used refresh tokens; and the context every route handler is given. Nothing lives only in memory, so a
// restart keeps every Pin and its URL, ids are never handed out twice, and every API node serves the same sandbox.
// Boards follow from the account (auth.ts `boardsOf`): the simulator creates none.
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';

export interface PinterestAccount {
  id: string;
  username: string;
  name: string;
}

export type BoardPrivacy = 'PUBLIC' | 'PROTECTED' | 'SECRET';

export interface PinterestBoard {
  id: string;
  accountId: string;
  name: string;
  privacy: BoardPrivacy;
  createdAt: number;
}

/** One image or video of a Pin: the key of its kept bytes (null when not kept) and its kind. */
export interface PinMediaItem {
  key: string | null;
  kind: 'image' | 'video';
  width: number | null;
  height: number | null;
}

export interface PinterestPin {
  id: string;
  accountId: string;
  boardId: string;
  boardSectionId: string | null;
  title: string | null;
  description: string | null;
  link: string | null;
  altText: string | null;
  /** `image`, `multiple_images` or `video`, as Pinterest reports `media.media_type`. */
  mediaType: 'image' | 'multiple_images' | 'video';
  media: PinMediaItem[];
  /** Made while the simulator played an app with trial access: visible only to the pinner. */
  pinnerOnly: boolean;
  createdAt: number;
  deleted: boolean;
}

/** A registered media upload (`POST /v5/media`): registered → (bytes posted) processing → succeeded | failed. */
export interface PinterestUpload {
  id: string;
  accountId: string;
  /** The S3-style object key the upload form must name. */
  key: string;
  /** When the bytes arrived; null while only registered. */
  uploadedAt: number | null;
  readyAt: number | null;
  failed: boolean;
  contentType: string | null;
  size: number;
  /** The kept bytes' key (media-files.ts), for the Pin's page. */
  bytesKey: string | null;
}

/** The store's kinds. */
export const KIND = {
  account: 'account',
  /** Owned by the board: `list(KIND.pin, { owner: boardId })` lists a board's Pins, newest first. */
  pin: 'pin',
  upload: 'upload',
  /** jti of authorization codes already exchanged (single use: `insert`). */
  spentCode: 'spent-code',
  /** jti of revoked access and refresh tokens (a refresh token is spent by its use: continuous refresh). */
  revoked: 'revoked',
} as const;

/** What every route handler works with: the kit (its store holds the state) and Pinterest's error body. */
export interface PinterestContext {
  kit: SimulatorKit;
  errorReply: PlatformSimulator['errorReply'];
  /** Where the simulator is mounted (`/sandbox/pinterest` in Herald), for the URLs it hands out. */
  prefix: string;
  /**
   * Served as Pinterest's API Sandbox (`https://api-sandbox.pinterest.com`, here under `/api-sandbox`): every Pin it
   * creates is visible only to its pinner, whatever the app's access.
   */
  apiSandbox: boolean;
}

/**
 * Whether the simulator plays an app with trial access (`settings.pinterestTrialAccess`): every call counts against
 * 1,000 requests a day, and Pins can be created through the API Sandbox only (visible only to their pinner); the
 * production API refuses them (403, code 29).
 */
export function trialAccess(ctx: PinterestContext): boolean {
  return ctx.kit.settings.pinterestTrialAccess === true;
}
