// The upload and download paths' scavenges: one each time another `everyBytes` have been counted, none before,
// and the collector V8 exposes at run time is really there on this Node (otherwise uploads would silently go back
// to paying for full collections); and the download stage passes bytes, errors and teardown through.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import v8 from 'node:v8';
import { scavenging, settleHeap, youngCollector } from './young-gc.ts';

test('a scavenge runs each time another everyBytes have been counted, and V8 reports it as a minor collection', async () => {
  const minor: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      if ((entry as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR)
        minor.push(entry.duration);
  });
  observer.observe({ entryTypes: ['gc'] });
  const young = youngCollector(1024);
  young.count(1000);
  assert.equal(young.runs, 0);
  young.count(100); // 1,100 bytes: one scavenge
  assert.equal(young.runs, 1);
  for (let i = 0; i < 10; i++) young.count(1024);
  assert.equal(young.runs, 11);
  await new Promise((resolve) => setTimeout(resolve, 50)); // GC entries are delivered asynchronously
  observer.disconnect();
  assert.ok(minor.length >= 11, `V8 reported ${minor.length} minor collections for 11 requested`);
  console.log(`# 11 scavenges took ${minor.reduce((a, b) => a + b, 0).toFixed(1)} ms in all`);
});

test("scavenging passes every byte through in order, carries the source's error on, and closes the source when destroyed", async () => {
  const chunks = Array.from({ length: 40 }, (_, i) => Buffer.alloc(1000, i));
  const out: Buffer[] = [];
  for await (const chunk of scavenging(Readable.from(chunks), 4096)) out.push(chunk as Buffer);
  assert.deepEqual(Buffer.concat(out), Buffer.concat(chunks));

  const failing = new Readable({ read() {} });
  const through = scavenging(failing);
  failing.push(Buffer.alloc(10));
  failing.destroy(new Error('disk gone'));
  await assert.rejects(async () => {
    for await (const _ of through) {
      /* drain */
    }
  }, /disk gone/);

  const endless = new Readable({
    read() {
      this.push(Buffer.alloc(1024));
    },
  });
  const reader = scavenging(endless);
  reader.destroy();
  await new Promise((resolve) => endless.once('close', resolve));
  assert.equal(endless.destroyed, true);
});

test('settleHeap shrinks a young generation that surviving allocations grew back to a small size', () => {
  const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_size;
  // Objects that survive scavenges make V8 grow the young generation, as start-up does.
  const keep: unknown[] = [];
  for (let round = 0; round < 40; round++) {
    keep.push(Array.from({ length: 20_000 }, (_, i) => ({ i, s: `item ${i}` })));
    if (keep.length > 8) keep.shift();
  }
  const grown = young();
  keep.length = 0;
  assert.equal(settleHeap(), true, 'V8 ran the collection');
  const settled = young();
  assert.ok(settled < grown || settled <= 2 * 1024 * 1024, `young generation ${grown} -> ${settled} bytes`);
  console.log(`# young generation ${(grown / 1048576).toFixed(1)} MiB -> ${(settled / 1048576).toFixed(1)} MiB`);
});
