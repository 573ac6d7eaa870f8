// The upload sink: every byte lands in order, write-back starts every flushEveryBytes while writing goes on (never
// two at a time), the file is fsynced before `finish`, it never overwrites a file, and a stream torn down midway
// leaves no open descriptor behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileSink } from './file-sink.ts';

/** Counts FileHandle datasync/sync calls (and the most running at once) while `body` runs. */
async function countingSyncs<T>(dir: string, delayMs: number, body: () => Promise<T>): Promise<{ result: T; datasyncs: number; syncs: number; mostAtOnce: number }> {
  const probe = await open(path.join(dir, 'probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { datasync(): Promise<void>; sync(): Promise<void> };
  await probe.close();
  const { datasync, sync } = proto;
  let datasyncs = 0;
  let syncs = 0;
  let running = 0;
  let mostAtOnce = 0;
  proto.datasync = async function (this: unknown) {
    datasyncs++;
    mostAtOnce = Math.max(mostAtOnce, ++running);
    try {
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs)); // a slow disk: writes go on meanwhile
      return await datasync.call(this);
    } finally {
      running--;
    }
  };
  proto.sync = function (this: unknown) {
    syncs++;
    return sync.call(this);
  };
  try {
    return { result: await body(), datasyncs, syncs, mostAtOnce };
  } finally {
    Object.assign(proto, { datasync, sync });
  }
}

const openDescriptors = async () => (await readdir('/proc/self/fd')).length;

/** 200 chunks of 16 KiB, one per timer tick, as a body arrives from a socket. */
async function* paced(): AsyncGenerator<Buffer> {
  for (let i = 0; i < 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    yield Buffer.alloc(16 * 1024, i % 251);
  }
}
const pacedBytes = () => Buffer.concat(Array.from({ length: 200 }, (_, i) => Buffer.alloc(16 * 1024, i % 251)));

test('every byte is written in order, a write-back starts each time another flushEveryBytes are written, and the file is fsynced before finish', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'file-sink-'));
  try {
    const file = path.join(dir, 'upload.part');
    const { datasyncs, syncs } = await countingSyncs(dir, 0, () => pipeline(paced(), fileSink(file, { flushEveryBytes: 256 * 1024 })));
    assert.deepEqual(await readFile(file), pacedBytes());
    // 3,200 KiB, a write-back every 256 KiB: 12 (11 if two chunks shared the write that crossed a mark).
    assert.ok(datasyncs === 11 || datasyncs === 12, `${datasyncs} write-backs`);
    assert.equal(syncs, 1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('on a slow disk, writing goes on during a write-back and never starts a second one beside it', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'file-sink-'));
  try {
    const file = path.join(dir, 'upload.part');
    const { datasyncs, syncs, mostAtOnce } = await countingSyncs(dir, 60, () => pipeline(paced(), fileSink(file, { flushEveryBytes: 256 * 1024 })));
    assert.deepEqual(await readFile(file), pacedBytes());
    assert.ok(datasyncs >= 1 && datasyncs < 11, `${datasyncs} write-backs`);
    assert.equal(mostAtOnce, 1);
    assert.equal(syncs, 1);
    console.log(`# 3,200 KiB, 60 ms per write-back: ${datasyncs} write-backs, then one fsync`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a body smaller than flushEveryBytes is written back once, by the closing fsync', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'file-sink-'));
  try {
    const file = path.join(dir, 'small.part');
    const { datasyncs, syncs } = await countingSyncs(dir, 0, () => pipeline(Readable.from([Buffer.from('hello '), Buffer.from('world')]), fileSink(file)));
    assert.equal(await readFile(file, 'utf8'), 'hello world');
    assert.deepEqual({ datasyncs, syncs }, { datasyncs: 0, syncs: 1 });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('an existing file is never overwritten: the sink fails with EEXIST and the file keeps its bytes', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'file-sink-'));
  try {
    const file = path.join(dir, 'taken');
    await writeFile(file, 'first');
    await assert.rejects(pipeline(Readable.from([Buffer.from('second')]), fileSink(file)), { code: 'EEXIST' });
    assert.equal(await readFile(file, 'utf8'), 'first');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a source that fails midway fails the pipeline, and the sink closes its file (no descriptor left open)', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'file-sink-'));
  try {
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
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
