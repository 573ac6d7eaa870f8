// The local driver's `receive`, on both of its paths — a small body hashed on the main thread, a body announced as
// large hashed on the hashing thread (src/lib/sha256-off-thread.ts): the SHA-256 it answers is that of the bytes in
// the file; a body past maxBytes is refused while it streams, before it ends; a body that fails midway leaves no
// temporary file. Hashing on the other thread only depends on the announced size, so small bodies exercise it here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomFillSync } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createLocalStorage, OFF_THREAD_HASH_BYTES } from './local.ts';

const PATHS = [
  { name: 'a small body (main thread)', expectedBytes: null },
  { name: 'a body announced as large (hashing thread)', expectedBytes: OFF_THREAD_HASH_BYTES },
];

async function withStorage(body: (storage: ReturnType<typeof createLocalStorage>, dir: string) => Promise<void>) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'local-storage-'));
  try {
    await body(
      createLocalStorage({ dir, publicUrl: 'http://herald.test', keyring: { current: 'k', previous: [] } }),
      dir,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Chunks as a socket hands them over, each in a buffer of its own, plus a view into a larger one. */
function chunks(): Buffer[] {
  const larger = randomFillSync(Buffer.alloc(300_000));
  return [...Array.from({ length: 40 }, () => randomFillSync(Buffer.alloc(64 * 1024))), larger.subarray(1234, 251_234)];
}

for (const { name, expectedBytes } of PATHS) {
  test(`${name}: the SHA-256 answered is that of the bytes in the file`, () =>
    withStorage(async (storage) => {
      const body = chunks();
      const bytes = Buffer.concat(body);
      const receipt = await storage.receive(Readable.from(body), {
        maxBytes: bytes.length,
        exactBytes: null,
        expectedBytes,
      });
      assert.equal(receipt.size, bytes.length);
      const stored = await readFile(receipt.tempPath);
      assert.deepEqual(stored, bytes);
      assert.equal(receipt.sha256, createHash('sha256').update(stored).digest('hex'));
    }));

  test(`${name}: more than maxBytes is refused while the body streams, and nothing is left`, () =>
    withStorage(async (storage, dir) => {
      let sent = 0;
      const endless = new Readable({
        read() {
          sent++;
          this.push(Buffer.alloc(64 * 1024, 1));
        },
      });
      await assert.rejects(storage.receive(endless, { maxBytes: 1024 * 1024, exactBytes: null, expectedBytes }), {
        code: 'PUBLIC_API_PAYLOAD_TOO_LARGE',
      });
      assert.ok(sent < 64, `${sent} chunks were read from a body that never ends`);
      assert.deepEqual(await readdir(path.join(dir, '.incoming')), []);
    }));

  test(`${name}: a body that fails midway fails the receipt and leaves no temporary file`, () =>
    withStorage(async (storage, dir) => {
      let sent = 0;
      const failing = new Readable({
        read() {
          if (sent++ < 40) this.push(randomFillSync(Buffer.alloc(64 * 1024)));
          else this.destroy(new Error('client went away'));
        },
      });
      await assert.rejects(
        storage.receive(failing, { maxBytes: 10 * 1024 * 1024, exactBytes: null, expectedBytes }),
        /client went away/,
      );
      assert.deepEqual(await readdir(path.join(dir, '.incoming')), []);
    }));
}
