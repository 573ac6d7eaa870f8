// Benchmark 6: images fitted to platforms. BENCH_CONVERT_PHOTOS (default 100) photos of 12 megapixels
// (4000×3000 JPEG with EXIF, BENCH_CONVERT_DISTINCT different pictures repeated) are uploaded to a running Herald;
// then one post per photo to Instagram, Bluesky and X asks for their variants (fitted to 1440 px; to 2000 px and
// 1 MB; metadata stripped at 4000 px), which Herald's worker makes in jobs, at most HERALD_MEDIA_CONVERSIONS (4) at
// once. Measured: from the first post to the last variant ready, and the server's RSS growth over that time. The
// floor is the same sharp pipeline on the same files and rules, called directly, 4 at once (floor/convert.ts), in
// the same run.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { PLATFORM_LIMITS } from '../src/platforms/catalogue.ts';
import { prepareWorkspace, startHerald } from './lib/herald.ts';
import { MIB, runNode, sampleRss, sleep } from './lib/processes.ts';
import { fmt, type BenchContext, type Row } from './lib/report.ts';

const RATIO_TARGET = 0.8;
const RSS_BAR = 256 * MIB;
const PLATFORMS = ['instagram', 'bluesky', 'x'] as const;
/**
 * Neither side is given an allocator setting: Herald must keep its RSS under the bar with glibc's defaults, as an
 * operator starts it (whatever MALLOC_ARENA_MAX the caller's environment has is inherited by both sides alike).
 */

/** A 4000×3000 photo-like picture: smooth gradients with fine detail, EXIF (camera and position) attached. */
async function photo(seed: number): Promise<Buffer> {
  const width = 4000;
  const height = 3000;
  const pixels = Buffer.alloc(width * height * 3);
  let s = seed * 7919 + 1;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      const grain = (s >> 16) & 0x1f;
      const i = (y * width + x) * 3;
      pixels[i] = (((x + seed * 300) % width) / width) * 200 + grain;
      pixels[i + 1] = (y / height) * 200 + grain;
      pixels[i + 2] = (((x * y) >> 12) & 0x7f) + grain;
    }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 92 })
    .withExif({
      IFD0: { Make: 'Bench', Model: 'Camera' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 24/1' },
    })
    .toBuffer();
}

export async function mediaConvertBenchmark(ctx: BenchContext): Promise<Row[]> {
  const count = Number(process.env.BENCH_CONVERT_PHOTOS ?? (ctx.quick ? 12 : 100));
  const distinct = Math.min(count, Number(process.env.BENCH_CONVERT_DISTINCT ?? (ctx.quick ? 3 : 10)));
  await mkdir(ctx.scratch, { recursive: true });
  const files: string[] = [];
  for (let i = 0; i < distinct; i++) {
    const file = path.join(ctx.scratch, `photo-${i}.jpg`);
    await writeFile(file, await photo(i));
    files.push(file);
  }
  const photos = Array.from({ length: count }, (_, i) => files[i % distinct]!);
  ctx.log(`media-convert: ${count} photos of 12 MP (${distinct} distinct) × ${PLATFORMS.join(', ')}`);

  // The floor: the same pipeline, the same files, the same rules.
  const rules = PLATFORMS.map((p) => PLATFORM_LIMITS[p].media.imageFit!);
  const runFloor = async () =>
    JSON.parse(
      await runNode([path.join(import.meta.dirname, 'floor/convert.ts'), JSON.stringify(rules), ...photos]),
    ) as { seconds: number; growth: number; conversions: number };
  const rounds = ctx.quick ? 1 : Number(process.env.BENCH_CONVERT_ROUNDS ?? 2);

  const db = await ctx.server.createDatabase();
  try {
    const ws = await prepareWorkspace(db.url);
    const herald = await startHerald({
      databaseUrl: db.url,
      dataDir: path.join(ctx.scratch, 'herald'),
      secret: ws.secret,
      env: { HERALD_MEDIA_CONVERSIONS: '4', HERALD_WORKER_POLL_INTERVAL_MS: '100' },
    });
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const call = async (method: string, url: string, body: unknown, key: string) => {
        const res = await fetch(`${herald.url}${url}`, {
          method,
          headers: {
            authorization: `Bearer ${ws.key}`,
            'content-type': 'application/json',
            'idempotency-key': key,
          },
          body: JSON.stringify(body),
        });
        const json = (await res.json()) as { data: Record<string, unknown> };
        if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
        return json.data;
      };
      const mediaIds: string[] = [];
      for (const [i, file] of photos.entries()) {
        const bytes = await readFile(file);
        const made = (await call(
          'POST',
          '/v1/media/upload-url',
          { filename: `photo-${i}.jpg`, content_type: 'image/jpeg', size_bytes: bytes.length },
          `upload-${i}`,
        )) as { media_id: string; upload: { signed_url: string } };
        const put = await fetch(made.upload.signed_url, {
          method: 'PUT',
          headers: { 'content-type': 'image/jpeg' },
          body: bytes,
        });
        if (put.status !== 200) throw new Error(`PUT: ${put.status} ${await put.text()}`);
        mediaIds.push(made.media_id);
      }
      const want = count * PLATFORMS.length;
      // Rounds alternate the floor and Herald (a shared machine's load only slows a run down): each side keeps its
      // best time and its worst RSS growth. Each Herald round forgets the variants and writes the posts again.
      const floors: Array<{ seconds: number; growth: number }> = [];
      const heralds: Array<{ seconds: number; growth: number }> = [];
      for (let round = 0; round < rounds; round++) {
        const f = await runFloor();
        floors.push(f);
        ctx.log(`media-convert floor ${round + 1}: ${f.seconds.toFixed(2)} s, RSS +${fmt.mib(f.growth)}`);
        await client.query('DELETE FROM media_variants');
        const rss = sampleRss(herald.pid);
        const started = performance.now();
        for (const [i, id] of mediaIds.entries())
          await call(
            'POST',
            '/v1/posts',
            { content: `photo ${i}`, platforms: PLATFORMS, media_ids: [id] },
            `post-${round}-${i}`,
          );
        for (;;) {
          const { rows } = await client.query<{ status: string; n: number }>(
            'SELECT status, count(*)::int AS n FROM media_variants GROUP BY status',
          );
          const by = Object.fromEntries(rows.map((r) => [r.status, r.n]));
          if (by.failed) throw new Error(`${by.failed} variants failed`);
          if ((by.ready ?? 0) >= want) break;
          await sleep(50);
        }
        const seconds = (performance.now() - started) / 1000;
        const { first, peak } = await rss.stop();
        heralds.push({ seconds, growth: peak - first });
        ctx.log(`media-convert Herald ${round + 1}: ${seconds.toFixed(2)} s, RSS +${fmt.mib(peak - first)}`);
      }
      const seconds = Math.min(...heralds.map((h) => h.seconds));
      const growth = Math.max(...heralds.map((h) => h.growth));
      const floor = {
        seconds: Math.min(...floors.map((f) => f.seconds)),
        growth: Math.max(...floors.map((f) => f.growth)),
      };
      const rate = (s: number) => want / s;
      const ratio = rate(seconds) / rate(floor.seconds);
      const note = `${count} photos × 3 platforms, best of ${rounds}`;
      return [
        {
          benchmark: `Convert 12 MP, ${note}: throughput`,
          herald: `${rate(seconds).toFixed(1)} /s (${seconds.toFixed(1)} s)`,
          floor: `${rate(floor.seconds).toFixed(1)} /s (${floor.seconds.toFixed(1)} s)`,
          ratio,
          target: `≥ ${RATIO_TARGET} × floor`,
          pass: ratio >= RATIO_TARGET,
          database: ctx.server.label,
        },
        {
          benchmark: `Convert 12 MP, ${note}: RSS growth`,
          herald: fmt.mib(growth),
          floor: fmt.mib(floor.growth),
          ratio: null,
          target: `< ${fmt.mib(RSS_BAR)}`,
          pass: growth < RSS_BAR,
          database: ctx.server.label,
        },
      ];
    } finally {
      await client.end();
      await herald.stop();
    }
  } finally {
    await db.drop();
  }
}
