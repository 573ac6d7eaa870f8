// The Facebook Pages simulator's documents in the sandbox store (docs/platforms/facebook.md "Calls"): users who sign
// in with Facebook Login and the Pages each one manages, feed posts, photos (published or held unpublished for
// `attached_media`), resumable video uploads with their processing timeline (each chunk its own blob), spent
// one-time codes and removed app authorizations; and what its route handlers are given. Nothing lives only in
// memory: a restart, or another API node, sees the same Page.
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
  /** The first bytes received, kept here for sniffing at finish. */
  head: Buffer;
  received: number;
  /** The blobs of the chunks received, in order (`kit.store` bytes): the video's bytes, served once it is posted. */
  chunks: string[];
  /** Set by upload_phase=finish: processing runs from here to readyAt. */
  finishedAt: number | null;
  readyAt: number;
  failed: string | null;
  published: boolean;
  description: string;
  /** The Page post it became, named when it is published (the post is written from this document: ensureVideoPost). */
  postId: string | null;
  publishedAt: number | null;
  /** A media fault taken at start, applied at finish. */
  fault: { fault: string; delayMs?: number } | undefined;
  createdAt: number;
}

/** The store's kinds: one document per user, Page, post, photo, video, spent code and removed authorization. */
export const KIND = {
  user: 'user',
  page: 'page',
  post: 'post',
  photo: 'photo',
  video: 'video',
  /** jti of authorization codes already exchanged (single use: `insert`). */
  spentCode: 'spent-code',
  /** User ids whose app authorization was removed (DELETE /me/permissions): their tokens fail with 190/458. */
  deauthorized: 'deauthorized',
} as const;

/** The blob of an uploaded photo's bytes. */
export const photoBlob = (photoId: string) => `photo:${photoId}`;

/** What the Facebook simulator's route handlers are given. */
export interface FbSim {
  kit: SimulatorKit;
  /** The simulator's answer for framework-level statuses (an unknown version is a 404 path). */
  errorReply(reply: FastifyReply, status: number, message: string): FastifyReply;
  /** Where the simulator is mounted (permalinks and paging URLs name it). */
  prefix(): string;
}
