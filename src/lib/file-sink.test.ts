// The upload sink: every byte lands in order, a write-back starts each time another flushEveryBytes are written
// while writing goes on (never two at a time), one fsync comes before `finish`, each written batch is handed on in
// order, it never overwrites a file, and a stream torn down midway leaves no open descriptor behind. The rule is
// checked on a log of what reached the disk, so the test holds however the machine schedules the writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileSink } from './file-sink.ts';

type DiskEvent =
  { kind: 'write'; bytes: number } | { kind: 'write-back' } | { kind: 'written-back' } | { kind: 'fsync' };

/**
 * Logs, in order, every write, write-back (fdatasync) and fsync made through FileHandles while `body` runs; with
 * `slowMs`, each write-back takes that much longer, as on a busy disk.
 */
async function watchingDisk(dir: string, slowMs: number, body: () => Promise<unknown>): Promise<DiskEvent[]> {
  const probe = await open(path.join(dir, 'probe'), 'w');
  type Handle = {
    writev(buffers: Buffer[]): Promise<{ bytesWritten: number }>;
    datasync(): Promise<void>;
    sync(): Promise<void>;
  };
  const proto = Object.getPrototypeOf(probe) as Handle;
  await probe.close();
  const { writev, datasync, sync } = proto;
  const log: DiskEvent[] = [];
  proto.writev = async function (this: unknown, buffers: Buffer[]) {
    const result = await writev.call(this, buffers);
    log.push({ kind: 'write', bytes: result.bytesWritten });
    return result;
  };
  proto.datasync = async function (this: unknown) {
    log.push({ kind: 'write-back' });
    try {
      if (slowMs > 0) await new Promise((resolve) => setTimeout(resolve, slowMs));
      return await datasync.call(this);
    } finally {
      log.push({ kind: 'written-back' });
    }
  };
  proto.sync = function (this: unknown) {
    log.push({ kind: 'fsync' });
    return sync.call(this);
  };
  try {
    await body();
    return log;
  } finally {
    Object.assign(proto, { writev, datasync, sync });
  }
}

/**
 * Replays the log against the rule: a write-back starts right after the write that brings `every` bytes or more
 * since the last one started, unless one is still running (never two at once, never otherwise); one fsync comes
 * last. Returns how many write-backs ran and how many writes completed while one was running.
 */
function checkWriteBacks(log: DiskEvent[], every: number): { writeBacks: number; writesDuring: number } {
  let unwritten = 0;
  let running = false;
  let due = false;
  let writeBacks = 0;
  let writesDuring = 0;
  log.forEach((event, i) => {
    if (event.kind !== 'write-back') assert.equal(due, false, `event ${i}: a write-back was due before it`);
    if (event.kind === 'write') {
      unwritten += event.bytes;
      if (running) writesDuring++;
      due = unwritten >= every && !running;
    } else if (event.kind === 'write-back') {
      assert.ok(due, `event ${i}: a write-back that was not due`);
      [due, running, unwritten] = [false, true, 0];
      writeBacks++;
    } else if (event.kind === 'written-back') {
      running = false;
    }
  });
  assert.equal(log.filter((e) => e.kind === 'fsync').length, 1);
  assert.equal(log.at(-1)?.kind, 'fsync');
  return { writeBacks, writesDuring };
}

const openDescriptors = async () => (await readdir('/proc/self/fd')).length;

/** Runs `body` with a fresh temporary directory, removed afterwards. */
async function inTempDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'file-sink-'));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** 200 chunks of 16 KiB, one per timer tick, as a body arrives from a socket. */
async function* paced(): AsyncGenerator<Buffer> {
  for (let i = 0; i < 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    yield Buffer.alloc(16 * 1024, i % 251);
  }
}
const pacedBytes = () => Buffer.concat(Array.from({ length: 200 }, (_, i) => Buffer.alloc(16 * 1024, i % 251)));

test('every byte is written in order, a write-back starts each time another flushEveryBytes are written, and the file is fsynced before finish', () =>
  inTempDir(async (dir) => {
    const file = path.join(dir, 'upload.part');
    const log = await watchingDisk(dir, 0, () => pipeline(paced(), fileSink(file, { flushEveryBytes: 256 * 1024 })));
    assert.deepEqual(await readFile(file), pacedBytes());
    const { writeBacks } = checkWriteBacks(log, 256 * 1024);
    assert.ok(writeBacks >= 1 && writeBacks <= 12, `${writeBacks} write-backs for 3,200 KiB`);
  }));

test('on a slow disk, writing goes on during a write-back and never starts a second one beside it', () =>
  inTempDir(async (dir) => {
    const file = path.join(dir, 'upload.part');
    const log = await watchingDisk(dir, 60, () => pipeline(paced(), fileSink(file, { flushEveryBytes: 256 * 1024 })));
    assert.deepEqual(await readFile(file), pacedBytes());
    const { writeBacks, writesDuring } = checkWriteBacks(log, 256 * 1024);
    assert.ok(writesDuring > 0, 'no write completed while a write-back ran');
    console.log(
      `# 3,200 KiB, 60 ms per write-back: ${writeBacks} write-backs, ${writesDuring} writes made during them, then one fsync`,
    );
  }));

test('each batch goes to `written` once it is in the file, in order, and the sink writes nothing more until it settles', () =>
  inTempDir(async (dir) => {
    const file = path.join(dir, 'handed-on.part');
    const handed: Buffer[] = [];
    let calls = 0;
    const written = async (chunks: Buffer[]) => {
      calls++;
      handed.push(...chunks.map((c) => Buffer.from(c)));
      const total = handed.reduce((sum, c) => sum + c.length, 0);
      assert.equal((await stat(file)).size, total, 'the file holds exactly the bytes handed on so far');
      await new Promise((resolve) => setTimeout(resolve, 2));
      assert.equal((await stat(file)).size, total, 'nothing was written while `written` ran');
    };
    await pipeline(paced(), fileSink(file, { written }));
    assert.deepEqual(Buffer.concat(handed), pacedBytes());
    assert.deepEqual(await readFile(file), pacedBytes());
    assert.ok(calls > 1, `${calls} batches`);
  }));

test('a body smaller than flushEveryBytes is written back once, by the closing fsync', () =>
  inTempDir(async (dir) => {
    const file = path.join(dir, 'small.part');
    const log = await watchingDisk(dir, 0, () =>
      pipeline(Readable.from([Buffer.from('hello '), Buffer.from('world')]), fileSink(file)),
    );
    assert.equal(await readFile(file, 'utf8'), 'hello world');
    assert.equal(checkWriteBacks(log, 32 * 1024 * 1024).writeBacks, 0);
  }));

test('an existing file is never overwritten: the sink fails with EEXIST and the file keeps its bytes', () =>
  inTempDir(async (dir) => {
    const file = path.join(dir, 'taken');
    await writeFile(file, 'first');
    await assert.rejects(pipeline(Readable.from([Buffer.from('second')]), fileSink(file)), { code: 'EEXIST' });
    assert.equal(await readFile(file, 'utf8'), 'first');
  }));

test('a source that fails midway fails the pipeline, and the sink closes its file (no descriptor left open)', () =>
  inTempDir(async (dir) => {
    const before = await openDescriptors();
    let sent = 0;
    const failing = new Readable({
      read() {
        if (sent++ < 50) this.push(Buffer.alloc(64 * 1024, 7));
        else this.destroy(new Error('client went away'));
      },
    });
    const sink = fileSink(path.join(dir, 'cut.part'), { flushEveryBytes: 512 * 1024 });
    await assert.rejects(pipeline(failing, sink), /client went away/);
    if (!sink.closed) await new Promise((resolve) => sink.once('close', resolve));
    assert.equal(await openDescriptors(), before);
  }));
