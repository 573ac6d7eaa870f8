// Benchmark: the LinkedIn adapter's upload protocols against the simulator over real HTTP on loopback — a video
// of BENCH_LI_VIDEO_MIB (default 64) sent in LinkedIn's 4 MiB byte ranges with ETags and finalized, then a
// 20-image multi-image set, and a reconciliation look-up among BENCH_LI_POSTS (default 500) posts. Processing
// delays are set to zero so the figures are Herald's own work and the transfer. Prints a table; asserts nothing.
//
//   node bench/linkedin-media.ts
import { Readable } from 'node:stream';
import { createPlatformHttp } from '../src/platforms/http.ts';
import { createPlatformRegistry } from '../src/platforms/registry.ts';
import type { MediaSource, OutgoingPart, PlatformSession } from '../src/platforms/types.ts';
import { startSandbox } from '../src/sandbox/server.ts';
import { partMemory } from '../src/platforms/part-memory.ts';

const MIB = 1024 * 1024;
const videoMiB = Number(process.env.BENCH_LI_VIDEO_MIB ?? 64);
const posts = Number(process.env.BENCH_LI_POSTS ?? 500);

function source(kind: 'video' | 'image', contentType: string, size: number, head: Buffer): MediaSource {
  return {
    id: `bench_${kind}`,
    kind,
    contentType,
    sizeBytes: size,
    width: null,
    height: null,
    durationMs: null,
    altText: null,
    // Streamed in 1 MiB chunks, as a stored file would be read.
    open: async () =>
      Readable.from(
        (function* () {
          yield head;
          for (let sent = head.length; sent < size; sent += MIB) yield Buffer.alloc(Math.min(MIB, size - sent), 7);
        })(),
      ),
  };
}

const mp4Head = Buffer.from('000000206674797069736f6d0000020069736f6d69736f32617663316d703431', 'hex');
const pngHead = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a1f2b5a40000000049454e44ae426082',
  'hex',
);

const sandbox = await startSandbox({
  platforms: ['linkedin'],
  settings: { linkedinVideoProcessingMs: 0, linkedinImageProcessingMs: 0 },
  rateLimitFactor: 1000,
});
try {
  const http = createPlatformHttp({ baseUrl: sandbox.baseUrl('linkedin'), timeoutMs: 60_000 });
  const adapter = createPlatformRegistry().get('linkedin')!;
  const { account, credentials } = await adapter.connectSandbox(http, { username: 'bench_member' });
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
  const part = (text: string, firstSentAt = new Date()): OutgoingPart => ({
    index: 0,
    text,
    media: [],
    parent: null,
    root: null,
    key: adapter.newPartKey(new Date()),
    firstSentAt,
    options: {},
    ...partMemory(),
  });
  const rows: Array<[string, string]> = [];

  const rssBefore = process.memoryUsage().rss;
  let t = performance.now();
  await adapter.prepareMedia(session, [source('video', 'video/mp4', videoMiB * MIB, mp4Head)], {});
  let ms = performance.now() - t;
  rows.push([
    `video ${videoMiB} MiB (${Math.ceil(videoMiB / 4)} parts, finalize, status)`,
    `${Math.round(ms)} ms, ${(videoMiB / (ms / 1000)).toFixed(0)} MiB/s, RSS +${Math.round((process.memoryUsage().rss - rssBefore) / MIB)} MiB (simulator in the same process keeps the bytes)`,
  ]);

  t = performance.now();
  const images = await adapter.prepareMedia(
    session,
    Array.from({ length: 20 }, () => source('image', 'image/png', 200_000, pngHead)),
    {},
  );
  await adapter.publish(session, { ...part(`bench images ${Date.now()}`), media: images });
  rows.push(['20 images (200 kB) uploaded and posted as multi-image', `${Math.round(performance.now() - t)} ms`]);

  const since = new Date(Date.now() - 1000);
  for (let i = 0; i < posts; i++) await adapter.publish(session, part(`bench post ${i} ${Date.now()}`));
  const wanted = part(`bench post 0`, since);
  t = performance.now();
  await adapter.findPublished(session, wanted);
  ms = performance.now() - t;
  rows.push([
    `findPublished that finds nothing among ${posts} recent posts (reads its 3 pages of 50)`,
    `${ms.toFixed(1)} ms`,
  ]);

  console.log('| LinkedIn adapter ↔ simulator (loopback) | result |\n|---|---|');
  for (const [what, result] of rows) console.log(`| ${what} | ${result} |`);
} finally {
  await sandbox.close();
}
