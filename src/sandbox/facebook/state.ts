// In-memory state of the Facebook Pages simulator (docs/platforms/facebook.md "Calls"): users who sign in with Facebook
// Login, the Pages each one manages, feed posts, photos (published or held unpublished for `attached_media`), resumable
// video uploads with their processing timeline, and spent one-time codes; and what its route handlers are given.
import type { FastifyReply } from 'fastify';
import type { SimulatorKit } from '../framework/simulator.ts';

export interface FbUser {
  id: string;
  username: string;
  name: string;
}

export interface FbPage {
  id: string;
  name: string;
  /** The Page's vanity name (Herald's handle for the connection). */
  username: string;
  ownerId: string;
}

export interface FbPost {
  /** `{page-id}_{post-id}`, as Graph names Page posts. */
  id: string;
  pageId: string;
  message: string;
  link: string | null;
  /** Photo ids (attached_media) or the one video id this post carries. */
  photoIds: string[];
  videoId: string | null;
  createdAt: number;
  deleted: boolean;
}

export interface FbPhoto {
  id: string;
  pageId: string;
  contentType: string;
  bytes: number;
  altText: string | null;
  /** Unpublished photos wait to be attached to a feed post; a published one has its own post. */
  published: boolean;
  /** The feed post this photo went out with (attached once only). */
  postId: string | null;
  createdAt: number;
}

export interface FbVideo {
  id: string;
  pageId: string;
  uploadSessionId: string;
  fileSize: number;
  /** The first bytes received, kept for sniffing; the rest is counted, not kept. */
  head: Buffer;
  received: number;
  /** Set by upload_phase=finish: processing runs from here to readyAt. */
  finishedAt: number | null;
  readyAt: number;
  failed: string | null;
  published: boolean;
  description: string;
  postId: string | null;
  /** A media fault taken at start, applied at finish. */
  fault: { fault: string; delayMs?: number } | undefined;
  createdAt: number;
}

export interface FbState {
  users: Map<string, FbUser>;
  pages: Map<string, FbPage>;
  posts: Map<string, FbPost>;
  photos: Map<string, FbPhoto>;
  videos: Map<string, FbVideo>;
  /** jti of authorization codes already exchanged (single use). */
  spent: Set<string>;
  /** User ids whose app authorization was removed (DELETE /me/permissions): their tokens fail with 190/458. */
  deauthorized: Set<string>;
}

export function createFbState(): FbState {
  return {
    users: new Map(),
    pages: new Map(),
    posts: new Map(),
    photos: new Map(),
    videos: new Map(),
    spent: new Set(),
    deauthorized: new Set(),
  };
}

/** What the Facebook simulator's route handlers are given. */
export interface FbSim {
  kit: SimulatorKit;
  state: FbState;
  /** The simulator's answer for framework-level statuses (an unknown version is a 404 path). */
  errorReply(reply: FastifyReply, status: number, message: string): FastifyReply;
  /** Where the simulator is mounted (permalinks and paging URLs name it). */
  prefix(): string;
}
