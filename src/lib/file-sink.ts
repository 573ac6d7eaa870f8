// A write stream into a new file that is on disk, not only in the page cache, when it finishes: `finish` comes
// after an fsync. Unlike `createWriteStream(…, { flush: true })`, it does not leave the whole file's write-back
// to that last fsync. Every `flushEveryBytes` it asks the kernel to write back what it has so far (an fdatasync
// on the thread pool, at most one at a time, while the next writes go on), so the disk works while the body is
// still arriving and the closing fsync only has the tail left (a 1 GiB upload used to wait 0.6–0.7 s for that
// fsync after its last byte: docs/decisions.md, "Uploads start their write-back every 32 MiB").
import { open, type FileHandle } from 'node:fs/promises';
import { Writable } from 'node:stream';

const FLUSH_EVERY_BYTES = 32 * 1024 * 1024;

export interface FileSinkOptions {
  /** Start write-back each time this many more bytes have been written. */
  flushEveryBytes?: number;
  /**
   * Called with each batch of chunks once it is written, in order; the sink takes no more until it settles. The
   * sink is done with the chunks by then (an upload hands them on to its hashing thread).
   */
  written?: (chunks: Buffer[]) => void | Promise<void>;
}

/** A Writable of Buffers into a file it creates (`wx`: never over an existing one). */
export function fileSink(file: string, options: FileSinkOptions = {}): Writable {
  const flushEvery = options.flushEveryBytes ?? FLUSH_EVERY_BYTES;
  let handle: FileHandle | undefined;
  let unflushed = 0;
  // The write-back in progress: waited for before the final fsync and before the file is closed, so the
  // descriptor is never closed under a running fdatasync.
  let flushing: Promise<void> | undefined;
  let flushError: unknown;

  const startFlush = (fh: FileHandle) => {
    unflushed = 0;
    flushing = fh.datasync().then(
      () => {
        flushing = undefined;
      },
      (error: unknown) => {
        flushError ??= error;
        flushing = undefined;
      },
    );
  };

  const write = async (chunks: Buffer[]) => {
    if (flushError) throw flushError;
    const fh = handle!;
    let bytes = 0;
    for (const c of chunks) bytes += c.length;
    // writev may write less than asked (a full disk reports ENOSPC on the next call): loop until all is down.
    let written = (await fh.writev(chunks)).bytesWritten;
    if (written < bytes) {
      const all = Buffer.concat(chunks);
      while (written < bytes) written += (await fh.write(all.subarray(written))).bytesWritten;
    }
    unflushed += bytes;
    if (unflushed >= flushEvery && !flushing) startFlush(fh);
    await options.written?.(chunks);
  };

  return new Writable({
    highWaterMark: 1024 * 1024,
    construct(done) {
      open(file, 'wx').then((fh) => {
        handle = fh;
        done();
      }, done);
    },
    writev(chunks, done) {
      write(chunks.map((c) => c.chunk as Buffer)).then(() => done(), done);
    },
    final(done) {
      (async () => {
        await flushing;
        if (flushError) throw flushError;
        await handle!.sync();
      })().then(() => done(), done);
    },
    destroy(error, done) {
      (async () => {
        await flushing;
        await handle?.close();
      })().then(
        () => done(error),
        (closing: Error) => done(error ?? closing),
      );
    },
  });
}
