// Benchmark 1: POST /v1/posts (scheduled, one platform, a unique idempotency key and text per request) at 64
// connections, against the floor server running the same transaction through `pg` (floor/posts-server.ts).
// Each side runs alone on the same fresh database, warmed up first, loaded by the same autocannon process.
import path from 'node:path';
import { prepareWorkspace, startHerald } from './lib/herald.ts';
import { alternateRounds, type LoadSpec } from './lib/load.ts';
import { startNodeServer } from './lib/processes.ts';
import { fmt, type BenchContext, type Row } from './lib/report.ts';

export const CONNECTIONS = 64;
export const TARGET = 0.7;

export function floorEnv(
  url: string,
  ws: { key: string; workspaceId: string; userId: string; brandId: string },
): Record<string, string> {
  return {
    FLOOR_DATABASE_URL: url,
    FLOOR_KEY: ws.key,
    FLOOR_WORKSPACE: ws.workspaceId,
    FLOOR_USER: ws.userId,
    FLOOR_BRAND: ws.brandId,
    FLOOR_POOL: '20',
  };
}

export async function createPostBenchmark(ctx: BenchContext): Promise<Row[]> {
  const seconds = ctx.quick ? 5 : 20;
  const rounds = ctx.quick ? 1 : 2;
  const db = await ctx.server.createDatabase();
  try {
    const ws = await prepareWorkspace(db.url);
    const spec = (url: string): LoadSpec => ({
      url: `${url}/v1/posts`,
      method: 'POST',
      headers: {
        authorization: `Bearer ${ws.key}`,
        'content-type': 'application/json',
        'idempotency-key': 'bench-[<id>]',
      },
      // Due in a month: nothing publishes during the run, so only the API is measured.
      body: JSON.stringify({
        content: 'Benchmark post [<id>]',
        platforms: ['mastodon'],
        schedule_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      }),
      connections: CONNECTIONS,
      seconds,
      unique: true,
    });

    // Herald and the floor alternate, so a burst of load from elsewhere on the machine hits one round, not one side.
    const { herald: h, floor: f } = await alternateRounds({
      rounds,
      spec,
      herald: () =>
        startHerald({ databaseUrl: db.url, dataDir: path.join(ctx.scratch, 'create-post'), secret: ws.secret }),
      floor: () => startNodeServer([path.join(import.meta.dirname, 'floor/posts-server.ts')], floorEnv(db.url, ws)),
      onRound: (h, f, round) =>
        ctx.log(
          `create post, round ${round + 1}: Herald ${fmt.rps(h.requestsPerSecond)}, p50 ${fmt.ms(h.p50Ms)}, p99 ${fmt.ms(h.p99Ms)}; floor ${fmt.rps(f.requestsPerSecond)}, p50 ${fmt.ms(f.p50Ms)}, p99 ${fmt.ms(f.p99Ms)}`,
        ),
    });
    const ratio = h.requestsPerSecond / f.requestsPerSecond;
    return [
      {
        benchmark: `Create post, ${CONNECTIONS} conn: throughput (best of ${rounds})`,
        herald: fmt.rps(h.requestsPerSecond),
        floor: fmt.rps(f.requestsPerSecond),
        ratio,
        target: `≥ ${TARGET} × floor`,
        pass: ratio >= TARGET,
        database: ctx.server.label,
      },
      {
        benchmark: `Create post, ${CONNECTIONS} conn: p50 / p99`,
        herald: `${fmt.ms(h.p50Ms)} / ${fmt.ms(h.p99Ms)}`,
        floor: `${fmt.ms(f.p50Ms)} / ${fmt.ms(f.p99Ms)}`,
        ratio: null,
        target: '—',
        pass: null,
        database: ctx.server.label,
      },
    ];
  } finally {
    await db.drop();
  }
}
