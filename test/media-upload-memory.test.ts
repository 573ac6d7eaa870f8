// A large upload is streamed, never held in memory: the server process's RSS stays flat while 256 MiB go
// through the local signed URL (bench/upload.ts measures 1–2 GiB). The client runs in its own process.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { YOUNG_GC_EVERY_BYTES } from '../src/lib/young-gc.ts';
import { buildMediaTestApp, requestUpload, type MediaTestApp } from './helpers/media.ts';

const MIB = 1024 * 1024;
const CLIENT = path.resolve(import.meta.dirname, 'helpers/upload-client.ts');
let t: MediaTestApp;
let key: string;

before(async () => {
  t = await buildMediaTestApp();
  key = await t.key();
});
after(() => t.close());

function upload(url: string, bytes: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLIENT, url, String(bytes)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`upload client exited with ${code}`))));
  });
}

async function signedUrl(bytes: number): Promise<string> {
  const res = await requestUpload(t, key, { filename: 'big.mp4', content_type: 'video/mp4', size_bytes: bytes });
  const signed = new URL(res.json().data.upload.signed_url);
  return `${t.origin}${signed.pathname}${signed.search}`;
}

test('a 256 MiB upload leaves the server RSS within 64 MiB of where it started', async () => {
  // Warm-up: code paths compiled, and V8 past its first 64 MiB of off-heap socket buffers (it collects them lazily).
  await upload(await signedUrl(64 * MIB), 64 * MIB);
  const size = 256 * MIB;
  const url = await signedUrl(size);
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 25);
  const collections = { minor: 0, major: 0 };
  const gcs = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) collections.minor++;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) collections.major++;
    }
  });
  gcs.observe({ entryTypes: ['gc'] });
  const started = performance.now();
  let result: { status: number; body: string };
  try {
    result = await upload(url, size);
  } finally {
    clearInterval(sampler);
    await new Promise((resolve) => setTimeout(resolve, 50)); // GC entries arrive asynchronously
    gcs.disconnect();
  }
  const seconds = (performance.now() - started) / 1000;
  const growth = peak - baseline;
  console.log(`# ${size / MIB} MiB in ${seconds.toFixed(2)} s (${(size / MIB / seconds).toFixed(0)} MiB/s); RSS ${(baseline / MIB).toFixed(0)} → peak ${(peak / MIB).toFixed(0)} MiB, growth ${(growth / MIB).toFixed(1)} MiB; ${collections.minor} scavenges, ${collections.major} full collections`);
  // The upload path frees the body's spent buffers with a scavenge every 8 MiB (src/lib/young-gc.ts): 31 or 32
  // here; half of that is enough to show they run (an entry can arrive after the observer is gone).
  assert.ok(collections.minor >= size / YOUNG_GC_EVERY_BYTES / 2, `${collections.minor} scavenges during ${size / MIB} MiB`);
  assert.equal(result.status, 200, result.body);
  const media = JSON.parse(result.body).data;
  assert.equal(media.status, 'ready');
  assert.equal(media.size_bytes, size);
  assert.equal((await stat(path.join(t.dataDir, 'media', t.owner.workspaceId, media.id))).size, size);
  assert.deepEqual(await readdir(path.join(t.dataDir, 'media', '.incoming')), []);
  assert.ok(growth < 64 * MIB, `RSS grew by ${(growth / MIB).toFixed(1)} MiB`);
});
