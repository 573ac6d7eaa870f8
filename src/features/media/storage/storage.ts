// The storage interface media are kept behind, with two drivers: `local` (a directory, URLs served and
// signed by Herald) and `s3` (any S3-compatible store, presigned URLs). Both answer the same reads, so the
// service, the cleanup job and the publishing engine never ask which one they hold — except to complete an
// upload, which differs by nature (local bytes arrive through Herald; s3 bytes arrive at the store).
import type { Readable } from 'node:stream';
import type { ByteReader } from '../sniff/byte-reader.ts';

export interface UploadTicket {
  workspaceId: string;
  mediaId: string;
  /** Where the bytes land: the object key (s3) or the media's name (local). */
  uploadKey: string;
  contentType: string;
  maxBytes: number;
  /** The exact size the client announced, signed into the URL; null when it announced none (local only). */
  declaredSize: number | null;
  expiresAt: Date;
}

export interface SignedUpload {
  url: string;
  /** Headers the client must send with its PUT. */
  headers: Record<string, string>;
}

export interface ReadTicket {
  workspaceId: string;
  mediaId: string;
  storageKey: string;
  contentType: string;
  filename: string;
  expiresAt: Date;
  /** Set when the URL is for a variant (media.variants.ts) rather than the original; `storageKey` is then its key. */
  variantId?: string;
}

/** An inclusive byte range, as in HTTP `Range: bytes=start-end`. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface StoredObject {
  size: number;
  /** The store's entity tag (s3), used to copy exactly the object that was checked. */
  etag: string | null;
}

export interface StorageReads {
  /** A short-lived URL anyone can GET the bytes from (clients, and platforms that fetch media by URL). */
  signRead(ticket: ReadTicket): Promise<string>;
  /** The stored bytes, or a range of them, as a stream. */
  open(key: string, range?: ByteRange): Promise<Readable>;
  /** Random access to stored bytes, for the sniffers; close it when done. */
  reader(key: string, size: number): Promise<ByteReader & { close(): Promise<void> }>;
  stat(key: string): Promise<StoredObject | null>;
  /** Deletes the bytes under `key`; a key that does not exist is not an error. */
  remove(key: string): Promise<void>;
  /** Stores bytes Herald made itself (a variant) under `key`, whole, replacing what was there. */
  put(key: string, data: Buffer, contentType: string): Promise<void>;
  /** Where a variant of a media item is kept, beside the original. */
  variantKey(workspaceId: string, mediaId: string, variantId: string): string;
  /**
   * Stores a local file of `size` bytes under `key`, streamed (media fetched by URL, transcoded videos); the file is
   * left where it was.
   */
  putFile(key: string, file: string, size: number, contentType: string): Promise<void>;
}

export interface LocalReceipt {
  /** The finished temporary file, not yet visible under any key. */
  tempPath: string;
  size: number;
  sha256: string;
}

export interface LocalStorage extends StorageReads {
  readonly driver: 'local';
  signUpload(ticket: UploadTicket): Promise<SignedUpload>;
  /** Whether `signature` is this server's signature of the upload ticket (current or previous secret). */
  verifyUpload(ticket: Omit<UploadTicket, 'uploadKey'>, signature: string): boolean;
  verifyRead(
    ticket: Pick<ReadTicket, 'workspaceId' | 'mediaId' | 'storageKey' | 'expiresAt'>,
    signature: string,
  ): boolean;
  /**
   * Streams `body` to a temporary file, hashing as it goes, refusing more than `maxBytes`; fsyncs before returning.
   * A body announced as large (`expectedBytes`, from Content-Length) is hashed on another thread, which takes its
   * chunks over once they are written: the body's Buffers are left empty.
   */
  receive(
    body: Readable,
    limits: { maxBytes: number; exactBytes: number | null; expectedBytes?: number | null },
  ): Promise<LocalReceipt>;
  /** Publishes a received file under `key` (atomic rename, directory fsynced). */
  commit(tempPath: string, key: string): Promise<void>;
  discard(tempPath: string): Promise<void>;
  /** Deletes temporary files untouched for `olderThanMs` (uploads cut off by a crash). */
  sweepTemporary(olderThanMs: number): Promise<number>;
  readerForFile(path: string): Promise<ByteReader & { close(): Promise<void> }>;
}

export interface S3Storage extends StorageReads {
  readonly driver: 's3';
  signUpload(ticket: UploadTicket & { declaredSize: number }): Promise<SignedUpload>;
  /**
   * Server-side copy of exactly the object with `etag`: 'source_gone' when it no longer exists (a concurrent
   * completion finished and deleted it), 'source_changed' when another PUT replaced it since it was measured.
   */
  copy(fromKey: string, toKey: string, etag: string | null): Promise<'copied' | 'source_gone' | 'source_changed'>;
  /** SHA-256 (hex) of the stored object, streamed. */
  hash(key: string): Promise<string>;
}

export type MediaStorage = LocalStorage | S3Storage;
