// The YouTube simulator's documents in the sandbox store (`kit.store`: PostgreSQL when Herald mounts it, memory in a
// standalone rig): channels, resumable upload sessions (their chunks as blobs), videos (their bytes as one blob once
// the upload completes), the quota spent per day, spent authorization codes and revoked tokens; and the context every
// route handler is given. Nothing lives only in memory, so a restart keeps every session, video and its URL, and
// every API node of a deployment serves the same sandbox.
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';

/** A channel: the account a sign-in publishes as. Its id and uploads playlist follow from the username. */
export interface YoutubeChannel {
  id: string;
  username: string;
  title: string;
  /** The channel's uploads playlist (`contentDetails.relatedPlaylists.uploads`). */
  uploads: string;
}

/** The metadata an upload session was started with (the video resource's snippet and status). */
export interface VideoMetadata {
  title: string;
  description: string;
  tags: string[];
  categoryId: string;
  privacyStatus: 'public' | 'unlisted' | 'private';
  selfDeclaredMadeForKids: boolean;
}

/** A resumable upload session: what `Location` names until the last byte arrives. */
export interface UploadSession {
  id: string;
  channelId: string;
  /** X-Upload-Content-Length: the file's size, fixed when the session starts. */
  total: number;
  contentType: string;
  metadata: VideoMetadata;
  /** Bytes held so far, from offset 0; each stored chunk's offset (its blob is `chunkBlob(id, offset)`). */
  received: number;
  chunks: number[];
  /** The video the last byte made; the session then answers its status query with it. */
  videoId: string | null;
  createdAt: number;
  /** Media faults given when the session started: processing takes longer, or fails. */
  processingDelayMs: number;
  processingFails: boolean;
}

export interface YoutubeVideo {
  id: string;
  channelId: string;
  sessionId: string;
  metadata: VideoMetadata;
  contentType: string;
  size: number;
  createdAt: number;
  /** Processing ends here (succeeded, or failed when `failed`). */
  processedAt: number;
  failed: boolean;
  /** Why processing fails (VideoStatus.failureReason): the media fault's `conversion`, or bytes that are no video. */
  failureReason?: 'conversion' | 'invalidFile';
  deleted: boolean;
}

/** The store's kinds. */
export const KIND = {
  channel: 'channel',
  session: 'upload-session',
  /** Owned by the channel: `list(KIND.video, { owner })` is the uploads playlist, newest first. */
  video: 'video',
  /** Units spent per `${project}:${channel}:${Pacific day}`. */
  quota: 'quota',
  /** jti of authorization codes already exchanged (single use: `insert`). */
  spentCode: 'spent-code',
  /** jti of revoked access and refresh tokens. */
  revoked: 'revoked',
} as const;

export const chunkBlob = (sessionId: string, offset: number) => `upload:${sessionId}:${offset}`;
export const videoBlob = (videoId: string) => `video:${videoId}`;

/** What every route handler works with: the kit (its store holds the state) and Google's error body. */
export interface YoutubeContext {
  kit: SimulatorKit;
  errorReply: PlatformSimulator['errorReply'];
  /** Where the simulator is mounted (`/sandbox/youtube` in Herald), for the URLs it hands out. */
  prefix: string;
}
