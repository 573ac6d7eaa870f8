// A large upload is streamed, never held in memory: the server process's RSS stays flat while 256 MiB go
// through the local signed URL (bench/upload.ts measures 1–2 GiB), and the same when they come back through the
// signed read URL; the body's spent buffers do not pile up on the main thread. The clients run in their own
// processes.
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

/** Counts the scavenges and full collections of this process until `stop`. */
function countCollections(): { stop(): Promise<{ minor: number; major: number }> } {
  const collections = { minor: 0, major: 0 };
  const gcs = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) collections.minor++;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) collections.major++;
    }
  });
  gcs.observe({ entryTypes: ['gc'] });
  return {
    async stop() {
      await new Promise((resolve) => setTimeout(resolve, 50)); // GC entries arrive asynchronously
      gcs.disconnect();
      return collections;
    },
  };
}

/** Reads `url` in a child process; its byte count and SHA-256. */
function download(url: string): Promise<{ status: number; bytes: number; sha256: string }> {
  const script = `const { createHash } = require('node:crypto');
    fetch(process.argv[1]).then(async (res) => {
      const hash = createHash('sha256'); let bytes = 0;
      for await (const chunk of res.body) { bytes += chunk.length; hash.update(chunk); }
      console.log(JSON.stringify({ status: res.status, bytes, sha256: hash.digest('hex') }));
    });`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script, url], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`download client exited with ${code}`)),
    );
  });
}

let uploaded: { url: string; size_bytes: number; sha256: string } | undefined;

function upload(url: string, bytes: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLIENT, url, String(bytes)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`upload client exited with ${code}`)),
    );
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
  const baseline = process.memoryUsage();
  let peak = baseline.rss;
  let peakBuffers = baseline.arrayBuffers;
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    peak = Math.max(peak, now.rss);
    peakBuffers = Math.max(peakBuffers, now.arrayBuffers);
  }, 25);
  const gcs = countCollections();
  const started = performance.now();
  let result: { status: number; body: string };
  try {
    result = await upload(url, size);
  } finally {
    clearInterval(sampler);
  }
  const collections = await gcs.stop();
  const seconds = (performance.now() - started) / 1000;
  const growth = peak - baseline.rss;
  const buffers = peakBuffers - baseline.arrayBuffers;
  console.log(
    `# ${size / MIB} MiB in ${seconds.toFixed(2)} s (${(size / MIB / seconds).toFixed(0)} MiB/s); RSS ${(baseline.rss / MIB).toFixed(0)} → peak ${(peak / MIB).toFixed(0)} MiB, growth ${(growth / MIB).toFixed(1)} MiB; main thread's buffers +${(buffers / MIB).toFixed(1)} MiB at most; ${collections.minor} scavenges, ${collections.major} full collections`,
  );
  // A body this large is hashed on another thread, which takes each chunk over once written
  // (src/lib/sha256-off-thread.ts): its spent buffers leave the main thread as it goes instead of piling up until V8
  // collects them (64 MiB and more: src/lib/young-gc.ts).
  assert.ok(buffers < 16 * MIB, `the main thread held up to ${(buffers / MIB).toFixed(1)} MiB of buffers`);
  assert.equal(result.status, 200, result.body);
  const media = JSON.parse(result.body).data;
  assert.equal(media.status, 'ready');
  assert.equal(media.size_bytes, size);
  assert.equal((await stat(path.join(t.dataDir, 'media', t.owner.workspaceId, media.id))).size, size);
  assert.deepEqual(await readdir(path.join(t.dataDir, 'media', '.incoming')), []);
  assert.ok(growth < 64 * MIB, `RSS grew by ${(growth / MIB).toFixed(1)} MiB`);
  uploaded = media;
});

test('downloading it through its signed read URL leaves the RSS flat too, and the bytes are the ones uploaded', async () => {
  assert.ok(uploaded, 'the upload above must have run');
  const read = new URL(uploaded.url);
  const url = `${t.origin}${read.pathname}${read.search}`;
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 25);
  const gcs = countCollections();
  const started = performance.now();
  let result: { status: number; bytes: number; sha256: string };
  try {
    result = await download(url);
  } finally {
    clearInterval(sampler);
  }
  const collections = await gcs.stop();
  const seconds = (performance.now() - started) / 1000;
  const growth = peak - baseline;
  console.log(
    `# download of ${uploaded.size_bytes / MIB} MiB in ${seconds.toFixed(2)} s; RSS growth ${(growth / MIB).toFixed(1)} MiB; ${collections.minor} scavenges, ${collections.major} full collections`,
  );
  assert.equal(result.status, 200);
  assert.equal(result.bytes, uploaded.size_bytes);
  // The bytes a client reads are those stored; a wrong or missing chunk would change the hash.
  assert.equal(result.sha256, uploaded.sha256);
  // Reading a file leaves spent buffers the way a socket does; the read stream scavenges every 8 MiB as well.
  assert.ok(
    collections.minor >= uploaded.size_bytes / YOUNG_GC_EVERY_BYTES / 2,
    `${collections.minor} scavenges during ${uploaded.size_bytes / MIB} MiB`,
  );
  assert.ok(growth < 64 * MIB, `RSS grew by ${(growth / MIB).toFixed(1)} MiB`);
});
