import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { batcher } from './batcher.ts';

test('items that arrive together share one run; each caller gets its own result', async () => {
  const runs: number[][] = [];
  const double = batcher(
    async (items: number[]) => {
      runs.push(items);
      return items.map((n) => n * 2);
    },
    { max: 100, parallel: 1 },
  );
  assert.deepEqual(await Promise.all([1, 2, 3].map(double)), [2, 4, 6]);
  assert.deepEqual(runs, [[1, 2, 3]]);
});

test('items arriving while a run is busy form the next batch; max and parallel are respected', async () => {
  const runs: number[][] = [];
  let active = 0;
  let most = 0;
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  const echo = batcher(
    async (items: number[]) => {
      runs.push(items);
      active++;
      most = Math.max(most, active);
      await gate;
      active--;
      return items;
    },
    { max: 3, parallel: 2 },
  );
  const first = [echo(1), echo(2), echo(3), echo(4)];
  await turn();
  const later = [5, 6, 7, 8, 9].map(echo);
  await turn();
  release();
  assert.deepEqual(await Promise.all([...first, ...later]), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.equal(most, 2);
  assert.ok(
    runs.every((r) => r.length <= 3),
    JSON.stringify(runs),
  );
  assert.deepEqual(
    runs.flat().sort((a, b) => a - b),
    [1, 2, 3, 4, 5, 6, 7, 8, 9],
  );
});

test('a failing batch is retried item by item, so only the bad item rejects', async () => {
  const runs: number[][] = [];
  const strict = batcher(
    async (items: number[]) => {
      runs.push(items);
      if (items.includes(13)) throw new Error('thirteen');
      return items;
    },
    { max: 10, parallel: 1 },
  );
  const results = await Promise.allSettled([12, 13, 14].map(strict));
  assert.deepEqual(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  assert.equal((results[1] as PromiseRejectedResult).reason.message, 'thirteen');
  assert.deepEqual(runs, [[12, 13, 14], [12], [13], [14]]);
});

test('a run that returns the wrong number of results rejects instead of misattributing them', async () => {
  const broken = batcher(async (_items: number[]) => [] as number[], { max: 10, parallel: 1 });
  await assert.rejects(broken(1), /0 results for 1 items/);
});
