// Benchmark: the Facebook Pages adapter against its simulator over loopback HTTP — text posts one after another
// (latency percentiles), a three-photo post (unpublished photos + attached_media), a large video through the
// resumable upload (4 MiB ranges; throughput and this process's RSS growth, which must not follow the file size),
// and the reconciliation look-up on a Page feed of a few hundred posts. Processing delays are set to zero so the
// figures are Herald's own cost plus the simulator's, not a simulated wait.
//
//   node bench/facebook-publish.ts                          64 MiB video, 200 text posts
//   BENCH_FB_VIDEO_MIB=512 BENCH_FB_POSTS=500 node bench/facebook-publish.ts
import { Readable } from 'node:stream';
import { createPlatformHttp } from '../src/platforms/http.ts';
import { createPlatformRegistry } from '../src/platforms/registry.ts';
import type { MediaSource, OutgoingPart, PlatformSession } from '../src/platforms/types.ts';
import { startSandbox } from '../src/sandbox/server.ts';
import { png } from '../test/helpers/media-sources.ts';

const VIDEO_MIB = Number(process.env.BENCH_FB_VIDEO_MIB ?? 64);
const POSTS = Number(process.env.BENCH_FB_POSTS ?? 200);

function videoSource(bytes: number): MediaSource {
  const head = Buffer.from('000000206674797069736f6d0000020069736f6d69736f32617663316d703431', 'hex');
  const block = Buffer.alloc(1024 * 1024, 7);
  return {
    id: 'bench-video', kind: 'video', contentType: 'video/mp4', sizeBytes: bytes, width: null, height: null, durationMs: 10_000, altText: null,
    // Generated on the fly: the benchmark itself holds no more than a block of the file.
    open: async () => Readable.from((function* () {
      yield head;
      for (let sent = head.length; sent < bytes; sent += block.length) yield block.subarray(0, Math.min(block.length, bytes - sent));
    })()),
  };
}

const imageSource = (i: number): MediaSource => {
  const data = png(64 + i, 48);
  return { id: `img${i}`, kind: 'image', contentType: 'image/png', sizeBytes: data.length, width: 64 + i, height: 48, durationMs: null, altText: `photo ${i}`, open: async () => Readable.from([data]) };
};

const sandbox = await startSandbox({ platforms: ['facebook'], rateLimitFactor: 1000, settings: { videoProcessingMs: 0 } });
try {
  const adapter = createPlatformRegistry().get('facebook')!;
  const http = createPlatformHttp({ baseUrl: sandbox.baseUrl('facebook'), timeoutMs: 60_000 });
  const { account, credentials } = await adapter.connectSandbox(http, { username: 'bench_page' });
  const session: PlatformSession = { connection: { id: 'bench', accountId: account.accountId, handle: account.handle, baseUrl: http.baseUrl, settings: {}, sandbox: true }, credentials, http, clock: { now: () => new Date() } };
  const part = (text: string, extra: Partial<OutgoingPart> = {}): OutgoingPart => ({ index: 0, text, media: [], parent: null, root: null, key: adapter.newPartKey(new Date()), firstSentAt: new Date(), options: {}, ...extra });
  const rows: Array<[string, string]> = [];

  const latencies: number[] = [];
  const first = part(`bench first ${Date.now()}`);
  for (let i = 0; i < POSTS; i++) {
    const started = performance.now();
    await adapter.publish(session, i === 0 ? first : part(`bench text ${i} ${Date.now()}`));
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!.toFixed(1);
  rows.push([`${POSTS} text posts`, `p50 ${pct(50)} ms, p95 ${pct(95)} ms, p99 ${pct(99)} ms`]);

  let started = performance.now();
  const found = await adapter.findPublished(session, first);
  rows.push([`look-up of the oldest post in a ${POSTS}-post feed`, `${(performance.now() - started).toFixed(1)} ms (${found ? 'found' : 'NOT FOUND'})`]);

  started = performance.now();
  const photos = await adapter.prepareMedia(session, [0, 1, 2].map(imageSource), {});
  await adapter.publish(session, part(`bench album ${Date.now()}`, { media: photos }));
  rows.push(['three-photo post (3 uploads + 1 feed post)', `${(performance.now() - started).toFixed(1)} ms`]);

  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
  started = performance.now();
  const video = await adapter.prepareMedia(session, [videoSource(VIDEO_MIB * 1024 * 1024)], {});
  await adapter.publish(session, part(`bench video ${Date.now()}`, { media: video }));
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  rows.push([`${VIDEO_MIB} MiB video (resumable upload, publish)`, `${seconds.toFixed(2)} s, ${(VIDEO_MIB / seconds).toFixed(0)} MiB/s, RSS +${((rssPeak - rssBefore) / 1024 / 1024).toFixed(0)} MiB (adapter and simulator in one process)`]);

  console.log('| Facebook adapter ↔ simulator | result |\n|---|---|');
  for (const [name, value] of rows) console.log(`| ${name} | ${value} |`);
} finally {
  await sandbox.close();
}
