// The hashing thread: its digest is the SHA-256 of every byte taken, in order, whatever kind of Buffer carries
// them; chunks that are the whole of their buffer are taken over (left empty), any other view is copied and left
// as it was; jobs at the same time keep apart; an aborted job leaves the thread to the others. The thread ends with
// the last job: this file would fail the leak check (test/helpers/leak-check.ts) if one were left running.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomFillSync } from 'node:crypto';
import { offThreadSha256 } from './sha256-off-thread.ts';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** Random bytes in a buffer of their own (Buffer.alloc never hands out a slice of the shared pool). */
const own = (size: number) => randomFillSync(Buffer.alloc(size));

test('the digest is the SHA-256 of every byte in order: whole buffers are taken over, views are copied and kept', async () => {
  const whole = [own(64 * 1024), own(100_000)];
  const larger = randomBytes(3 * 1024 * 1024);
  const view = larger.subarray(1000, 1000 + 2 * 1024 * 1024); // part of a larger buffer
  const pooled = Buffer.from('a few bytes from the shared pool');
  const expected = sha256(Buffer.concat([whole[0]!, view, pooled, whole[1]!, view]));
  const viewCopy = Buffer.from(view);

  const job = offThreadSha256();
  await job.take([whole[0]!, view]);
  await job.take([pooled, Buffer.alloc(0), whole[1]!]);
  await job.take([view]); // the same bytes again
  assert.equal(await job.digest(), expected);
  assert.deepEqual(
    whole.map((b) => b.byteLength),
    [0, 0],
    'chunks that are their whole buffer were transferred',
  );
  assert.deepEqual(view, viewCopy, 'a view into a larger buffer is untouched');
  assert.equal(pooled.toString(), 'a few bytes from the shared pool');
});

test('jobs at the same time each get the digest of their own bytes, many MiB past the in-flight bound', async () => {
  const chunks = (seed: number) => Array.from({ length: 40 }, (_, i) => Buffer.alloc(512 * 1024, (seed + i) % 256));
  const [a, b] = [chunks(1), chunks(7)];
  const expected = [sha256(Buffer.concat(a)), sha256(Buffer.concat(b))];
  const [jobA, jobB] = [offThreadSha256(), offThreadSha256()];
  for (let i = 0; i < 40; i += 4) {
    await Promise.all([jobA.take(a.slice(i, i + 4)), jobB.take(b.slice(i, i + 4))]);
  }
  assert.deepEqual(await Promise.all([jobA.digest(), jobB.digest()]), expected);
});

test('an aborted job refuses more bytes, and the thread goes on hashing for the others', async () => {
  const kept = offThreadSha256();
  const dropped = offThreadSha256();
  await dropped.take([randomBytes(2 * 1024 * 1024)]);
  dropped.abort();
  await assert.rejects(dropped.take([randomBytes(10)]), /aborted/);
  const bytes = randomBytes(3 * 1024 * 1024);
  await kept.take([Buffer.from(bytes)]);
  assert.equal(await kept.digest(), sha256(bytes));
  // A job after every other has ended starts a thread again.
  const later = offThreadSha256();
  await later.take([Buffer.from('again')]);
  assert.equal(await later.digest(), sha256(Buffer.from('again')));
});
