// Random access to stored bytes, for the sniffers: a JPEG's size marker may sit after large EXIF blocks and an
// MP4's `moov` box at the very end, so they read at offsets rather than from a stream. Readers exist for a
// buffer (tests), a local file and (in storage/s3.ts) ranged GETs; `withHead` answers reads that fall in the
// first bytes from one cached read, so a remote object costs few requests.
import { open, type FileHandle } from 'node:fs/promises';

export interface ByteReader {
  /** Total length of the data in bytes. */
  readonly size: number;
  /** Up to `length` bytes starting at `offset`: fewer at the end of the data, empty past it. */
  read(offset: number, length: number): Promise<Buffer>;
}

export function bufferReader(data: Buffer): ByteReader {
  return {
    size: data.length,
    read: async (offset, length) =>
      data.subarray(Math.min(offset, data.length), Math.min(offset + length, data.length)),
  };
}

/** A reader over a file; close it when done. */
export async function fileReader(path: string): Promise<ByteReader & { close(): Promise<void> }> {
  const handle: FileHandle = await open(path, 'r');
  const { size } = await handle.stat();
  return {
    size,
    async read(offset, length) {
      const wanted = Math.max(0, Math.min(length, size - offset));
      const buffer = Buffer.alloc(wanted);
      let done = 0;
      while (done < wanted) {
        const { bytesRead } = await handle.read(buffer, done, wanted - done, offset + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return buffer.subarray(0, done);
    },
    close: () => handle.close(),
  };
}

/** Wraps a reader so that reads inside the first `headBytes` come from one cached read. */
export function withHead(inner: ByteReader, headBytes: number): ByteReader & { head(): Promise<Buffer> } {
  let head: Promise<Buffer> | undefined;
  const loadHead = () => (head ??= inner.read(0, Math.min(headBytes, inner.size)));
  return {
    size: inner.size,
    head: loadHead,
    async read(offset, length) {
      const cached = await loadHead();
      if (offset + length <= cached.length || cached.length === inner.size) {
        return cached.subarray(Math.min(offset, cached.length), Math.min(offset + length, cached.length));
      }
      return inner.read(offset, length);
    },
  };
}
