// A scavenge every few MiB of a large request body, and of a large file read (`scavenging`). Each socket read of
// a body becomes a buffer held outside the JS heap, and V8 frees such buffers only when a collection finds them
// dead. With the young generation V8 gives Herald (64 MiB once started), no scavenge runs while a body streams
// through, so what frees them is a full collection, triggered every ~64 MB of them and marking the whole heap:
// some 30 per GiB, 0.9 s of main-thread time and 3.2–3.8 s of CPU in all. A scavenge every 8 MiB frees them
// while they are young, for about a millisecond each: 1.4–1.5 s of CPU per GiB (docs/decisions.md, "A scavenge
// every 8 MiB of upload").
// Every 16 MiB was not enough: in one run of three the full collections came back. An upload body announced at
// 32 MiB or more needs none: its buffers leave with the hashing thread (src/lib/sha256-off-thread.ts).
//
// V8 offers the call only with --expose-gc; it is switched on here, at run time, and read through a fresh VM
// context (the main context was created before the flag). Should that ever fail, uploads work as before.
import { pipeline, Transform, type Readable } from 'node:stream';
import v8 from 'node:v8';
import vm from 'node:vm';

export const YOUNG_GC_EVERY_BYTES = 8 * 1024 * 1024;

type Gc = (options: {
  type: 'minor' | 'major';
  execution?: 'sync' | 'async';
  flavor?: 'regular' | 'last-resort';
}) => void;

let collect: Gc | null | undefined;

function collector(): Gc | null {
  if (collect === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc');
      collect = vm.runInNewContext('gc') as Gc;
    } catch {
      collect = null;
    }
  }
  return collect;
}

/** Counts a body's bytes and runs a scavenge each time another `everyBytes` have gone by. */
export function youngCollector(everyBytes = YOUNG_GC_EVERY_BYTES): {
  count(bytes: number): void;
  readonly runs: number;
} {
  let since = 0;
  let runs = 0;
  return {
    count(bytes) {
      since += bytes;
      if (since < everyBytes) return;
      since = 0;
      const gc = collector();
      if (!gc) return;
      gc({ type: 'minor' });
      runs++;
    },
    get runs() {
      return runs;
    },
  };
}

/**
 * One compacting, memory-reducing collection (V8's "last resort" flavour): the young generation shrinks back from
 * the size start-up's allocations grew it to, and the old generation is compacted. For a process about to idle;
 * it pauses the main thread for some 100–400 ms. Returns whether V8 ran it.
 */
export function settleHeap(): boolean {
  const gc = collector();
  if (!gc) return false;
  gc({ type: 'major', flavor: 'last-resort' });
  return true;
}

/**
 * `source` through a stage that counts its bytes for a youngCollector: a large file read from disk leaves the
 * same trail of spent buffers as a body read from a socket. Errors travel on to the returned stream, and
 * destroying it (a client gone) closes the source.
 */
export function scavenging(source: Readable, everyBytes = YOUNG_GC_EVERY_BYTES): Readable {
  const young = youngCollector(everyBytes);
  const stage = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      young.count(chunk.length);
      done(null, chunk);
    },
  });
  pipeline(source, stage, () => {});
  return stage;
}
