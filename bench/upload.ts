// Benchmark 4: one large upload (1 GiB; BENCH_UPLOAD_MIB to change it) through Herald's local signed URL —
// streamed to a temporary file, hashed, capped, fsynced, renamed, sniffed, recorded — against a bare node:http
// server that only streams the PUT to disk and fsyncs (floor/upload-server.ts). Each server is its own process,
// warmed up with a 64 MiB upload; the client is a third process (test/helpers/upload-client.ts). RSS growth is
// the server's peak during the upload minus its RSS just before, sampled from /proc every 25 ms. The two
// alternate for three rounds (BENCH_UPLOAD_ROUNDS; a shared disk's write-back makes single runs noisy): best
// time, worst growth, least CPU.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { prepareWorkspace, startHerald } from './lib/herald.ts';
import { cpuOf, MIB, REPO, runNode, sampleRss, startNodeServer } from './lib/processes.ts';
import { fmt, type BenchContext, type Row } from './lib/report.ts';

const CLIENT = path.join(REPO, 'test/helpers/upload-client.ts');
const WARM_UP = 64 * MIB;
const RATIO_TARGET = 0.9;
const RSS_BAR = 64 * MIB;

interface Measured {
  seconds: number;
  growth: number;
  /** The server process's CPU (user + system) during the upload. */
  cpu: number;
  status: number;
  body: string;
}

async function upload(url: string, bytes: number, pid: number): Promise<Measured> {
  const rss = sampleRss(pid);
  const cpuBefore = await cpuOf(pid);
  const started = performance.now();
  const result = JSON.parse(await runNode([CLIENT, url, String(bytes)])) as { status: number; body: string };
  const seconds = (performance.now() - started) / 1000;
  const cpu = (await cpuOf(pid)) - cpuBefore;
  const { first, peak } = await rss.stop();
  return { seconds, growth: peak - first, cpu, ...result };
}

export async function uploadBenchmark(ctx: BenchContext): Promise<Row[]> {
  const sizeMib = Number(process.env.BENCH_UPLOAD_MIB ?? (ctx.quick ? 256 : 1024));
  const size = sizeMib * MIB;
  const rounds = ctx.quick ? 1 : Number(process.env.BENCH_UPLOAD_ROUNDS ?? 3);
  const db = await ctx.server.createDatabase();
  try {
    const ws = await prepareWorkspace(db.url);
    const bares: Measured[] = [];
    const heralds: Measured[] = [];
    for (let round = 0; round < rounds; round++) {
      const bareDir = path.join(ctx.scratch, `bare-${round}`);
      const bare = await startNodeServer([path.join(import.meta.dirname, 'floor/upload-server.ts'), bareDir]);
      try {
        await upload(bare.url, WARM_UP, bare.pid);
        bares.push(await upload(bare.url, size, bare.pid));
      } finally {
        await bare.stop();
        await rm(bareDir, { recursive: true, force: true });
      }

      const dataDir = path.join(ctx.scratch, `herald-${round}`);
      const herald = await startHerald({ databaseUrl: db.url, dataDir, secret: ws.secret });
      try {
        const signedUrl = async (bytes: number) => {
          const res = await fetch(`${herald.url}/v1/media/upload-url`, {
            method: 'POST',
            headers: {
              authorization: `Bearer ${ws.key}`,
              'content-type': 'application/json',
              'idempotency-key': `upload-${round}-${bytes}`,
            },
            body: JSON.stringify({ filename: 'bench.mp4', content_type: 'video/mp4', size_bytes: bytes }),
          });
          const body = (await res.json()) as { data: { upload: { signed_url: string } } };
          if (res.status !== 201) throw new Error(`upload-url: ${res.status} ${JSON.stringify(body)}`);
          return body.data.upload.signed_url;
        };
        await upload(await signedUrl(WARM_UP), WARM_UP, herald.pid);
        const measured = await upload(await signedUrl(size), size, herald.pid);
        const media = JSON.parse(measured.body).data as { status?: string } | undefined;
        if (measured.status !== 200 || media?.status !== 'ready')
          throw new Error(`Herald upload: ${measured.status} ${measured.body.slice(0, 300)}`);
        heralds.push(measured);
      } finally {
        await herald.stop();
        await rm(dataDir, { recursive: true, force: true });
      }
      const [h, b] = [heralds.at(-1)!, bares.at(-1)!];
      ctx.log(
        `upload round ${round + 1}: Herald ${h.seconds.toFixed(2)} s (CPU ${h.cpu.toFixed(2)} s), bare ${b.seconds.toFixed(2)} s (CPU ${b.cpu.toFixed(2)} s)`,
      );
    }
    const best = (runs: Measured[]) => Math.min(...runs.map((r) => r.seconds));
    const worstGrowth = (runs: Measured[]) => Math.max(...runs.map((r) => r.growth));
    const leastCpu = (runs: Measured[]) => Math.min(...runs.map((r) => r.cpu));
    const rate = (seconds: number) => sizeMib / seconds;
    const ratio = rate(best(heralds)) / rate(best(bares));
    const note = `${sizeMib} MiB, best of ${rounds}`;
    return [
      {
        benchmark: `Upload ${note}: throughput`,
        herald: `${rate(best(heralds)).toFixed(0)} MiB/s (${best(heralds).toFixed(2)} s)`,
        floor: `${rate(best(bares)).toFixed(0)} MiB/s (${best(bares).toFixed(2)} s)`,
        ratio,
        target: `≥ ${RATIO_TARGET} × floor`,
        pass: ratio >= RATIO_TARGET,
        database: ctx.server.label,
      },
      {
        benchmark: `Upload ${note}: server CPU, user + system (least)`,
        herald: `${leastCpu(heralds).toFixed(2)} s`,
        floor: `${leastCpu(bares).toFixed(2)} s`,
        ratio: leastCpu(bares) / leastCpu(heralds),
        target: '— (ratio: floor ÷ Herald)',
        pass: null,
        database: ctx.server.label,
      },
      {
        benchmark: `Upload ${note}: server RSS growth (worst)`,
        herald: fmt.mib(worstGrowth(heralds)),
        floor: fmt.mib(worstGrowth(bares)),
        ratio: null,
        target: `< ${fmt.mib(RSS_BAR)}`,
        pass: worstGrowth(heralds) < RSS_BAR,
        database: ctx.server.label,
      },
    ];
  } finally {
    await db.drop();
  }
}
