import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pruneInBatches } from './prune.ts';

test('pruneInBatches goes on while a batch is full and sums what went', async () => {
  const rows = [3, 3, 3, 1];
  const asked: number[] = [];
  const removed = await pruneInBatches(async (batch) => {
    asked.push(batch);
    return rows.shift() ?? 0;
  }, 3);
  assert.equal(removed, 10);
  assert.deepEqual(asked, [3, 3, 3, 3]);
  assert.equal(await pruneInBatches(async () => 0, 3), 0);
});
