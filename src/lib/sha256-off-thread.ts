// SHA-256 of a large body computed on a worker thread, so that the main thread only receives and writes (a GiB
// costs 0.6–0.7 s of hashing, which the second core can do meanwhile). The chunks are transferred to the thread,
// not copied: the caller hands over chunks it is done with (already written), and they are detached from the main
// thread at once — which also frees their memory without the main thread's collector (src/lib/young-gc.ts).
//
// One thread serves every job at a time; it starts with the first job and ends when the last one does, so an
// idle process keeps no thread (and a test leaves none running). Should the thread fail, every job in flight
// fails with it and the next job starts a new one. Why and what it measured: docs/decisions.md, "Large uploads are
// hashed on a worker thread, their buffers transferred to it".
import { Worker } from 'node:worker_threads';

/** What the main thread sends: a batch of a job's bytes, or the job's end (its digest wanted, or not). */
type ToHashingThread = { job: number; chunks: Uint8Array[] } | { job: number; end: 'digest' | 'drop' };

/** What the thread answers: a batch hashed, or a job's digest (hex). */
type FromHashingThread = { job: number; hashed: number } | { job: number; sha256: string };

// The thread's whole program, in plain JavaScript: a TypeScript file would make the thread load Node's type
// stripper too (twice the memory, 38 against 20 MiB, and twice the start-up, 60 against 26 ms). One hash per job,
// fed in order; each batch acknowledged with its byte count once hashed, and its memory freed there and then
// (every chunk arrives as the sole view of its own buffer, so detaching it releases the bytes).
const THREAD_SOURCE = `
const { createHash } = require('node:crypto');
const { parentPort } = require('node:worker_threads');
const hashes = new Map();
parentPort.on('message', (message) => {
  const { job } = message;
  let hash = hashes.get(job);
  if ('end' in message) {
    hashes.delete(job);
    if (message.end === 'digest') parentPort.postMessage({ job, sha256: (hash ?? createHash('sha256')).digest('hex') });
    return;
  }
  if (!hash) hashes.set(job, (hash = createHash('sha256')));
  let hashed = 0;
  for (const chunk of message.chunks) {
    hash.update(chunk);
    hashed += chunk.byteLength;
    chunk.buffer.transfer(0);
  }
  parentPort.postMessage({ job, hashed });
});
`;

/** Chunks gathered before they are sent: one message per MiB rather than per socket read. */
const BATCH_BYTES = 1024 * 1024;
/** Bytes sent but not yet hashed beyond which `take` makes the caller wait: bounds the memory a slow thread holds. */
const MAX_IN_FLIGHT_BYTES = 8 * 1024 * 1024;

export interface OffThreadSha256 {
  /**
   * Hashes `chunks` after every chunk taken before. They are taken over: afterwards the caller's Buffers are
   * empty (detached). Resolves once there is room for more.
   */
  take(chunks: Buffer[]): Promise<void>;
  /** The SHA-256 (hex) of every byte taken; ends the job. */
  digest(): Promise<string>;
  /** Ends the job without a digest (the body failed). */
  abort(): void;
}

interface Job {
  hashed(bytes: number): void;
  digested(sha256: string): void;
  fail(error: Error): void;
}

interface HashingThread {
  worker: Worker;
  jobs: Map<number, Job>;
}

let current: HashingThread | undefined;
let lastJob = 0;

function startThread(): HashingThread {
  const thread: HashingThread = {
    // No flags of the main thread's (a preloaded module, a profiler): the thread only hashes.
    worker: new Worker(THREAD_SOURCE, { eval: true, execArgv: [] }),
    jobs: new Map(),
  };
  const failAll = (error: Error) => {
    if (current === thread) current = undefined;
    for (const job of thread.jobs.values()) job.fail(error);
    thread.jobs.clear();
  };
  thread.worker.on('message', (message: FromHashingThread) => {
    const job = thread.jobs.get(message.job);
    if (!job) return;
    if ('hashed' in message) job.hashed(message.hashed);
    else job.digested(message.sha256);
  });
  thread.worker.on('error', failAll);
  thread.worker.on('exit', (code) => failAll(new Error(`The hashing thread exited (code ${code}).`)));
  return thread;
}

/** Starts a hashing job (and the thread, if none is running). */
export function offThreadSha256(): OffThreadSha256 {
  const thread = (current ??= startThread());
  const id = ++lastJob;
  let batch: Uint8Array[] = [];
  let batchBytes = 0;
  let inFlight = 0;
  let failure: Error | undefined;
  let room: { resolve(): void; reject(error: Error): void } | undefined;
  let result: { resolve(sha256: string): void; reject(error: Error): void } | undefined;

  const send = (message: ToHashingThread, transfer: ArrayBuffer[] = []) => thread.worker.postMessage(message, transfer);
  const end = () => {
    thread.jobs.delete(id);
    if (thread.jobs.size === 0 && current === thread) {
      current = undefined;
      void thread.worker.terminate();
    }
  };
  const flush = () => {
    if (batch.length === 0) return;
    // Each chunk must be the whole of its buffer to be transferred alone; a view into a larger or shared buffer
    // (or one seen twice) is copied first.
    const seen = new Set<ArrayBufferLike>();
    const chunks = batch.map((chunk) => {
      const whole =
        chunk.buffer instanceof ArrayBuffer &&
        chunk.byteOffset === 0 &&
        chunk.byteLength === chunk.buffer.byteLength &&
        !seen.has(chunk.buffer);
      const own = whole ? chunk : new Uint8Array(chunk);
      seen.add(own.buffer);
      return own;
    });
    send(
      { job: id, chunks },
      chunks.map((chunk) => chunk.buffer as ArrayBuffer),
    );
    inFlight += batchBytes;
    batch = [];
    batchBytes = 0;
  };

  thread.jobs.set(id, {
    hashed(bytes) {
      inFlight -= bytes;
      if (room && inFlight < MAX_IN_FLIGHT_BYTES) {
        room.resolve();
        room = undefined;
      }
    },
    digested(sha256) {
      end();
      result?.resolve(sha256);
    },
    fail(error) {
      failure ??= error;
      room?.reject(error);
      result?.reject(error);
      room = result = undefined;
    },
  });

  return {
    async take(chunks) {
      if (failure) throw failure;
      for (const chunk of chunks) {
        if (chunk.byteLength === 0) continue;
        batch.push(chunk);
        batchBytes += chunk.byteLength;
      }
      if (batchBytes >= BATCH_BYTES) flush();
      if (inFlight >= MAX_IN_FLIGHT_BYTES) await new Promise<void>((resolve, reject) => (room = { resolve, reject }));
    },
    async digest() {
      if (failure) throw failure;
      flush();
      const sha256 = new Promise<string>((resolve, reject) => (result = { resolve, reject }));
      send({ job: id, end: 'digest' });
      return sha256;
    },
    abort() {
      if (!thread.jobs.has(id)) return;
      send({ job: id, end: 'drop' });
      thread.jobs.get(id)!.fail(new Error('The hashing job was aborted.'));
      end();
    },
  };
}
