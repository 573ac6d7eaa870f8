// Benchmark: the Facebook Pages adapter against its simulator over loopback HTTP — text posts one after another
// (latency percentiles), the reconciliation look-up on a Page feed of a few hundred posts, a three-photo post
// (unpublished photos + attached_media), and a large video through the resumable upload (4 MiB ranges; throughput
// and this process's RSS growth, which must not follow the file size). Processing delays are set to zero so the
// figures are Herald's own cost plus the simulator's, not a simulated wait. No database is involved.
//
//   npm run bench -- --only facebook-publish           64 MiB video, 200 text posts
//   BENCH_FB_VIDEO_MIB=512 npm run bench -- --only facebook-publish
import { Readable } from 'node:stream';
import { createPlatformHttp } from '../src/platforms/http.ts';
import { createPlatformRegistry } from '../src/platforms/registry.ts';
import type { MediaSource, OutgoingPart, PlatformSession } from '../src/platforms/types.ts';
import { startSandbox } from '../src/sandbox/server.ts';
import { png } from '../test/helpers/media-sources.ts';
import { fmt, type BenchContext, type Row } from './lib/report.ts';
import { partMemory } from '../src/platforms/part-memory.ts';

function videoSource(bytes: number): MediaSource {
  const head = Buffer.from('000000206674797069736f6d0000020069736f6d69736f32617663316d703431', 'hex');
  const block = Buffer.alloc(1024 * 1024, 7);
  return {
    id: 'bench-video',
    kind: 'video',
    contentType: 'video/mp4',
    sizeBytes: bytes,
    width: null,
    height: null,
    durationMs: 10_000,
    altText: null,
    // Generated on the fly: the benchmark itself holds no more than a block of the file.
    open: async () =>
      Readable.from(
        (function* () {
          yield head;
          for (let sent = head.length; sent < bytes; sent += block.length)
            yield block.subarray(0, Math.min(block.length, bytes - sent));
        })(),
      ),
  };
}

const imageSource = (i: number): MediaSource => {
  const data = png(64 + i, 48);
  return {
    id: `img${i}`,
    kind: 'image',
    contentType: 'image/png',
    sizeBytes: data.length,
    width: 64 + i,
    height: 48,
    durationMs: null,
    altText: `photo ${i}`,
    open: async () => Readable.from([data]),
  };
};

export async function facebookPublishBenchmark(ctx: BenchContext): Promise<Row[]> {
  const VIDEO_MIB = Number(process.env.BENCH_FB_VIDEO_MIB ?? (ctx.quick ? 8 : 64));
  const POSTS = Number(process.env.BENCH_FB_POSTS ?? (ctx.quick ? 20 : 200));
  ctx.log(`Facebook adapter: ${POSTS} text posts, a ${VIDEO_MIB} MiB video`);
  const sandbox = await startSandbox({
    platforms: ['facebook'],
    rateLimitFactor: 1000,
    settings: { facebookVideoProcessingMs: 0 },
  });
  try {
    const adapter = createPlatformRegistry().get('facebook')!;
    const http = createPlatformHttp({ baseUrl: sandbox.baseUrl('facebook'), timeoutMs: 60_000 });
    const { account, credentials } = await adapter.connectSandbox(http, { username: 'bench_page' });
    const session: PlatformSession = {
      connection: {
        id: 'bench',
        accountId: account.accountId,
        handle: account.handle,
        baseUrl: http.baseUrl,
        settings: {},
        sandbox: true,
      },
      credentials,
      http,
      clock: { now: () => new Date() },
    };
    const part = (text: string, extra: Partial<OutgoingPart> = {}): OutgoingPart => ({
      index: 0,
      text,
      media: [],
      parent: null,
      root: null,
      key: adapter.newPartKey(new Date()),
      firstSentAt: new Date(),
      options: {},
      ...partMemory(),
      ...extra,
    });
    const rows: Array<[string, string]> = [];

    const latencies: number[] = [];
    const first = part(`bench first ${Date.now()}`);
    for (let i = 0; i < POSTS; i++) {
      const started = performance.now();
      await adapter.publish(session, i === 0 ? first : part(`bench text ${i} ${Date.now()}`));
      latencies.push(performance.now() - started);
    }
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
    rows.push([`${POSTS} text posts`, `p50 ${fmt.ms(pct(50))}, p95 ${fmt.ms(pct(95))}, p99 ${fmt.ms(pct(99))}`]);

    let started = performance.now();
    const found = await adapter.findPublished(session, first);
    rows.push([
      `look-up of the oldest post in a ${POSTS}-post feed`,
      `${fmt.ms(performance.now() - started)} (${found ? 'found' : 'NOT FOUND'})`,
    ]);

    started = performance.now();
    const photos = await adapter.prepareMedia(session, [0, 1, 2].map(imageSource), {});
    await adapter.publish(session, part(`bench album ${Date.now()}`, { media: photos }));
    rows.push(['three-photo post (3 uploads + 1 feed post)', fmt.ms(performance.now() - started)]);

    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
    started = performance.now();
    const video = await adapter.prepareMedia(session, [videoSource(VIDEO_MIB * 1024 * 1024)], {});
    await adapter.publish(session, part(`bench video ${Date.now()}`, { media: video }));
    clearInterval(sampler);
    const seconds = (performance.now() - started) / 1000;
    rows.push([
      `${VIDEO_MIB} MiB video (resumable upload, publish)`,
      `${seconds.toFixed(2)} s, ${(VIDEO_MIB / seconds).toFixed(0)} MiB/s, RSS +${((rssPeak - rssBefore) / 1024 / 1024).toFixed(0)} MiB (adapter and simulator in one process)`,
    ]);

    return rows.map(([name, value]) => ({
      benchmark: `Facebook: ${name}`,
      herald: value,
      floor: '—',
      ratio: null,
      target: '—',
      pass: null,
      database: 'not used',
    }));
  } finally {
    await sandbox.close();
  }
}
