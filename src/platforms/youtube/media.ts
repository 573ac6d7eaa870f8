// The bytes of a YouTube upload (docs/platforms/youtube.md "Calls"): PUT to the resumable session in chunks of
// `chunkBytes` (a multiple of 256 KiB, as the protocol requires of every chunk but the last), starting at the byte
// the session holds. A chunk before the last whose answer is lost or is a 5xx is resumed at once: the status query
// says how far the session got, and the upload goes on from there. The last chunk's failure goes to the engine,
// which reconciles through the session (findPublished) before it sends again.
import type { Readable } from 'node:stream';
import type { PlatformHttp } from '../http-contract.ts';
import { isPlatformError, PlatformError, type MediaSource } from '../types.ts';
import * as client from './client.ts';

/** The protocol's unit: every chunk but the last is a multiple of it. */
export const CHUNK_QUANTUM = 256 * 1024;
/** 8 MiB a request: few requests for a typical video, little to send again after a lost one. */
export const DEFAULT_CHUNK_BYTES = 32 * CHUNK_QUANTUM;
/** Resumes of one upload inside a call before the failure goes to the engine. */
const MAX_RESUMES = 3;

/** Yields the stream from byte `from` in pieces of exactly `size` bytes (the last one shorter). */
async function* chunksFrom(stream: Readable, from: number, size: number): AsyncGenerator<Buffer> {
  let skip = from;
  let pending: Buffer[] = [];
  let length = 0;
  for await (const piece of stream) {
    let data = Buffer.isBuffer(piece) ? piece : Buffer.from(piece as Uint8Array);
    if (skip > 0) {
      const dropped = Math.min(skip, data.length);
      skip -= dropped;
      data = data.subarray(dropped);
    }
    while (length + data.length >= size) {
      const take = size - length;
      pending.push(data.subarray(0, take));
      yield Buffer.concat(pending);
      pending = [];
      length = 0;
      data = data.subarray(take);
    }
    if (data.length > 0) {
      pending.push(data);
      length += data.length;
    }
  }
  if (length > 0) yield Buffer.concat(pending);
}

export interface UploadInput {
  session: string;
  token: string;
  source: MediaSource;
  /** Bytes the session already holds (from its status query); 0 for a new session. */
  from: number;
  chunkBytes: number;
}

/** Sends the source's bytes from `from` on; answers the video the last byte made. */
export async function uploadBytes(http: PlatformHttp, input: UploadInput): Promise<client.Video> {
  let from = input.from;
  for (let resumes = 0; ; resumes++) {
    const next = await sendFrom(http, input, from);
    if ('done' in next) return next.done;
    if (resumes >= MAX_RESUMES)
      throw new PlatformError(
        'transient',
        'PLATFORM_UNAVAILABLE',
        `The YouTube upload stopped at byte ${next.from} of ${input.source.sizeBytes} ${MAX_RESUMES + 1} times.`,
      );
    from = next.from;
  }
}

/** One pass over the source from `from`: the video, or where the session stopped taking bytes. */
async function sendFrom(
  http: PlatformHttp,
  input: UploadInput,
  from: number,
): Promise<{ done: client.Video } | { from: number }> {
  const { session, token, source } = input;
  const total = source.sizeBytes;
  const stream = await source.open();
  try {
    let start = from;
    for await (const data of chunksFrom(stream, from, input.chunkBytes)) {
      const last = start + data.length === total;
      let state: client.SessionState;
      try {
        state = await client.putChunk(http, session, token, { data, start, total, contentType: source.contentType });
      } catch (error) {
        const resumable = isPlatformError(error) && (error.kind === 'unknown_outcome' || error.kind === 'transient');
        if (last || !resumable) throw error;
        // Where did the session get to? Go on from there.
        const now = await client.uploadStatus(http, session, token, total);
        if ('gone' in now) throw error;
        return 'done' in now ? now : { from: now.held };
      }
      if ('done' in state) return state;
      if ('gone' in state)
        throw new PlatformError('transient', 'PLATFORM_UNAVAILABLE', 'The YouTube upload session expired mid-upload.');
      // The session kept less than was sent: go on from what it holds.
      if (state.held !== start + data.length) return { from: state.held };
      start += data.length;
    }
    // Every byte was sent before (a resumed upload whose last answer was lost): the session says what it made.
    const now = await client.uploadStatus(http, session, token, total);
    if ('done' in now) return now;
    if ('held' in now && now.held < total) return { from: now.held };
    throw new PlatformError(
      'unknown_outcome',
      'PLATFORM_UNKNOWN_OUTCOME',
      'YouTube holds every byte of the upload but answered no video yet.',
    );
  } finally {
    stream.destroy();
  }
}
