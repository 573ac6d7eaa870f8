// The local storage driver: bytes under `$HERALD_DATA_DIR/media/<workspace>/<media>`, uploaded through
// Herald's own signed URL (`PUT /uploads/…`) and read through `GET /files/…`. An upload is streamed into a
// temporary file (hashed and counted on the way, never buffered) and appears under its name only by an atomic
// rename once complete, so a cut-off upload leaves no half file behind.
import { createHash, randomUUID, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, open, readdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { hmac, verifyHmac, type SecretKeyring } from '../../../lib/crypto.ts';
import { AppError } from '../../../app/errors.ts';
import { fileSink } from '../../../lib/file-sink.ts';
import { offThreadSha256 } from '../../../lib/sha256-off-thread.ts';
import { scavenging, youngCollector } from '../../../lib/young-gc.ts';
import { fileReader } from '../sniff/byte-reader.ts';
import type { LocalStorage, ReadTicket, UploadTicket } from './storage.ts';

export const UPLOAD_PATH = '/uploads';
export const FILES_PATH = '/files';
const UPLOAD_PURPOSE = 'media-upload-url';
const READ_PURPOSE = 'media-read-url';
const TEMP_DIR = '.incoming';

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

// What the signatures cover. Method and purpose differ, so an upload signature never works as a read one.
function uploadMessage(t: Omit<UploadTicket, 'uploadKey'>): string {
  return ['PUT', t.workspaceId, t.mediaId, t.contentType, t.maxBytes, t.declaredSize ?? '', seconds(t.expiresAt)].join(
    '\n',
  );
}
function readMessage(t: Pick<ReadTicket, 'workspaceId' | 'mediaId' | 'storageKey' | 'expiresAt'>): string {
  return ['GET', t.workspaceId, t.mediaId, t.storageKey, seconds(t.expiresAt)].join('\n');
}

/** Bodies announced at least this large are hashed on a worker thread (src/lib/sha256-off-thread.ts). */
export const OFF_THREAD_HASH_BYTES = 32 * 1024 * 1024;

/**
 * Counts the bytes flowing through and fails as soon as there are more than `maxBytes`. Given a hash, also hashes
 * them and frees the body's spent buffers while they are young (src/lib/young-gc.ts); without one, the bytes are
 * hashed on another thread once written, and leave the main thread with their buffers.
 */
class UploadMeter extends Transform {
  private readonly young = youngCollector();
  size = 0;
  private readonly maxBytes: number;
  private readonly hash: Hash | null;
  constructor(maxBytes: number, hash: Hash | null) {
    super();
    this.maxBytes = maxBytes;
    this.hash = hash;
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      done(
        new AppError(
          'PUBLIC_API_PAYLOAD_TOO_LARGE',
          `The upload is larger than the ${this.maxBytes} bytes this URL accepts (max_bytes).`,
        ),
      );
      return;
    }
    if (this.hash) {
      this.hash.update(chunk);
      this.young.count(chunk.length);
    }
    done(null, chunk);
  }
}

export function createLocalStorage(options: { dir: string; publicUrl: string; keyring: SecretKeyring }): LocalStorage {
  const { dir, publicUrl, keyring } = options;
  const tempDir = path.join(dir, TEMP_DIR);
  // Keys are built by the service from validated ids; this is a second fence against path tricks.
  const fileOf = (key: string) => {
    if (!/^[0-9a-f-]{36}\/med_[0-9a-z]{26}(\.var_[0-9a-z]{26})?$/.test(key))
      throw new Error(`Not a local media key: ${key}`);
    return path.join(dir, key);
  };

  /** Puts a finished temporary file under `key`: an atomic rename, the directory fsynced. */
  async function publish(tempPath: string, key: string): Promise<void> {
    const target = fileOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    await rename(tempPath, target);
    // The rename is durable only once the directory entry is on disk.
    const handle = await open(path.dirname(target), 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  return {
    driver: 'local',

    async signUpload(ticket) {
      const query = new URLSearchParams({
        expires: String(seconds(ticket.expiresAt)),
        signature: hmac(keyring, UPLOAD_PURPOSE, uploadMessage(ticket)),
      });
      return {
        url: `${publicUrl}${UPLOAD_PATH}/${ticket.workspaceId}/${ticket.mediaId}?${query}`,
        headers: { 'Content-Type': ticket.contentType },
      };
    },

    verifyUpload: (ticket, signature) => verifyHmac(keyring, UPLOAD_PURPOSE, uploadMessage(ticket), signature),
    verifyRead: (ticket, signature) => verifyHmac(keyring, READ_PURPOSE, readMessage(ticket), signature),

    async signRead(ticket) {
      const query = new URLSearchParams({
        ...(ticket.variantId !== undefined && { variant: ticket.variantId }),
        expires: String(seconds(ticket.expiresAt)),
        signature: hmac(keyring, READ_PURPOSE, readMessage(ticket)),
      });
      return `${publicUrl}${FILES_PATH}/${ticket.workspaceId}/${ticket.mediaId}?${query}`;
    },

    async receive(body, limits) {
      await mkdir(tempDir, { recursive: true });
      const tempPath = path.join(tempDir, `${randomUUID()}.part`);
      const large = (limits.expectedBytes ?? 0) >= OFF_THREAD_HASH_BYTES;
      const hash = large ? null : createHash('sha256');
      const hashing = large ? offThreadSha256() : null;
      const meter = new UploadMeter(limits.maxBytes, hash);
      let sha256: string;
      try {
        // The sink fsyncs the file before it finishes: a completed upload survives a crash right after.
        await pipeline(body, meter, fileSink(tempPath, hashing ? { written: (chunks) => hashing.take(chunks) } : {}));
        sha256 = hashing ? await hashing.digest() : hash!.digest('hex');
      } catch (error) {
        hashing?.abort();
        await rm(tempPath, { force: true });
        throw error;
      }
      if (limits.exactBytes !== null && meter.size !== limits.exactBytes) {
        await rm(tempPath, { force: true });
        throw new AppError(
          'PUBLIC_API_BODY_INVALID',
          `This URL expects exactly ${limits.exactBytes} bytes (the size_bytes you announced); ${meter.size} arrived. Nothing was stored; PUT again.`,
        );
      }
      return { tempPath, size: meter.size, sha256 };
    },

    commit: (tempPath, key) => publish(tempPath, key),

    discard: (tempPath) => rm(tempPath, { force: true }),

    async sweepTemporary(olderThanMs) {
      let names: string[];
      try {
        names = await readdir(tempDir);
      } catch {
        return 0; // no upload ever started
      }
      let removed = 0;
      for (const name of names) {
        const file = path.join(tempDir, name);
        const info = await stat(file).catch(() => undefined);
        if (info && Date.now() - info.mtimeMs > olderThanMs) {
          await rm(file, { force: true });
          removed++;
        }
      }
      return removed;
    },

    async open(key, range) {
      const file = fileOf(key);
      await stat(file); // fail here (ENOENT) rather than on the stream's first read
      // Scavenging: a 1 GiB download took 2.4–5.0 s of CPU without, 1.2–1.7 s with (docs/decisions.md).
      return scavenging(createReadStream(file, range ? { start: range.start, end: range.end } : {}));
    },

    reader: (key) => fileReader(fileOf(key)),
    readerForFile: (file) => fileReader(file),

    async stat(key) {
      const info = await stat(fileOf(key)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      return info ? { size: info.size, etag: null } : null;
    },

    variantKey: (workspaceId, mediaId, variantId) => `${workspaceId}/${mediaId}.${variantId}`,

    async put(key, data) {
      // Written whole to a temporary file, then renamed: a reader never sees half a variant.
      await mkdir(tempDir, { recursive: true });
      const tempPath = path.join(tempDir, `${randomUUID()}.part`);
      try {
        await writeFile(tempPath, data, { flush: true });
        await publish(tempPath, key);
      } catch (error) {
        await rm(tempPath, { force: true });
        throw error;
      }
    },

    async putFile(key, file) {
      // Copied to a temporary file, then renamed: a reader never sees half a file.
      await mkdir(tempDir, { recursive: true });
      const tempPath = path.join(tempDir, `${randomUUID()}.part`);
      try {
        await copyFile(file, tempPath);
        await this.commit(tempPath, key);
      } catch (error) {
        await rm(tempPath, { force: true });
        throw error;
      }
    },

    async remove(key) {
      await unlink(fileOf(key)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    },
  };
}
