// Benchmark 1: POST /v1/posts (scheduled, one platform, a unique idempotency key and text per request) at 64
// connections, against two floors: the server running the same transaction through `pg` (floor/posts-server.ts)
// and one prepared durable INSERT … RETURNING per request (floor/durable-write.ts); for the record, the rows a post is
// written alone (floor/posts-server.ts with FLOOR_MODE=write). Then the same creates with a
// million future posts queued (lib/seed-queue.ts), which must stay within 10 % of the empty-queue figure. Each side
// runs alone on the same database, warmed up first, loaded by the same autocannon process.
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { prepareWorkspace, startHerald } from './lib/herald.ts';
import { best, runLoad, warmUp, type LoadResult, type LoadSpec, type RoundServer } from './lib/load.ts';
import { sleep, startNodeServer } from './lib/processes.ts';
import { fmt, type BenchContext, type Row } from './lib/report.ts';
import { seedFutureQueue } from './lib/seed-queue.ts';

export const CONNECTIONS = 64;
export const TARGET = 0.7;
/** Herald's create at least this share of one bare durable write over HTTP. */
export const DURABLE_TARGET = 0.25;
/** With the queue full, create throughput at least this share of its empty-queue figure. */
export const QUEUE_TARGET = 0.9;
const QUEUED = Number(process.env.BENCH_QUEUE_POSTS ?? 1_000_000);

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

/** The sides in turn, `rounds` times, each started, warmed up, loaded and stopped alone; each side's best. */
async function alternate(
  rounds: number,
  spec: (url: string) => LoadSpec,
  sides: Record<string, () => Promise<RoundServer>>,
  onRound: (results: Record<string, LoadResult>, round: number) => void,
): Promise<Record<string, LoadResult>> {
  const runs: Record<string, LoadResult[]> = Object.fromEntries(Object.keys(sides).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, start] of Object.entries(sides)) {
      const server = await start();
      try {
        await warmUp(spec(server.url));
        runs[name]!.push(await runLoad(spec(server.url)));
      } finally {
        await server.stop();
      }
    }
    onRound(Object.fromEntries(Object.entries(runs).map(([name, r]) => [name, r.at(-1)!])), round);
  }
  return Object.fromEntries(Object.entries(runs).map(([name, r]) => [name, best(r)]));
}

const COUNTER = path.join(import.meta.dirname, 'lib/count-statements.ts');

/**
 * Statements Herald sends per create, counted by a `pg` wrapper preloaded into it (lib/count-statements.ts) over
 * `creates` sequential requests after one warm-up: the round trips of one transaction, the worker's polls included.
 */
async function statementsPerCreate(
  start: (env: Record<string, string>) => Promise<RoundServer & { pid: number }>,
  request: (url: string, n: number) => Promise<void>,
  out: string,
  creates = 50,
): Promise<{ total: number; top: Array<[string, number]> }> {
  await mkdir(path.dirname(out), { recursive: true });
  const server = await start({ NODE_OPTIONS: `--import ${COUNTER}`, BENCH_STATEMENTS_OUT: out });
  const snapshot = async (): Promise<Record<string, number>> => {
    await rm(out, { force: true });
    process.kill(server.pid, 'SIGUSR2');
    for (let i = 0; i < 200; i++) {
      try {
        return JSON.parse(await readFile(out, 'utf8')) as Record<string, number>;
      } catch {
        await sleep(25);
      }
    }
    throw new Error(`no statement tally in ${out}`);
  };
  try {
    await request(server.url, 0);
    const before = await snapshot();
    for (let n = 1; n <= creates; n++) await request(server.url, n);
    const after = await snapshot();
    const per = Object.entries(after)
      .map(([text, count]): [string, number] => [text, (count - (before[text] ?? 0)) / creates])
      .filter(([, count]) => count > 0)
      .sort((a, b) => b[1] - a[1]);
    return { total: per.reduce((sum, [, count]) => sum + count, 0), top: per };
  } finally {
    await server.stop();
  }
}

const line = (r: LoadResult) => `${fmt.rps(r.requestsPerSecond)}, p50 ${fmt.ms(r.p50Ms)}, p99 ${fmt.ms(r.p99Ms)}`;

export async function createPostBenchmark(ctx: BenchContext): Promise<Row[]> {
  const seconds = ctx.quick ? 5 : 20;
  const rounds = ctx.quick ? 1 : 2;
  const queued = ctx.quick ? 20_000 : QUEUED;
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
    const herald = () =>
      startHerald({ databaseUrl: db.url, dataDir: path.join(ctx.scratch, 'create-post'), secret: ws.secret });
    const floor = () =>
      startNodeServer([path.join(import.meta.dirname, 'floor/posts-server.ts')], floorEnv(db.url, ws));
    const durable = () =>
      startNodeServer([path.join(import.meta.dirname, 'floor/durable-write.ts')], floorEnv(db.url, ws));
    // The rows a post is and nothing else (posts_create alone): how much of the durable floor the data itself costs.
    const rows = () =>
      startNodeServer([path.join(import.meta.dirname, 'floor/posts-server.ts')], {
        ...floorEnv(db.url, ws),
        FLOOR_MODE: 'write',
        FLOOR_CONNECTION: ws.connections.get('mastodon')!,
      });

    // Herald and the floors alternate, so a burst of load from elsewhere on the machine hits one round, not one side.
    const empty = await alternate(rounds, spec, { herald, floor, rows, durable }, (r, round) =>
      ctx.log(
        `create post, round ${round + 1}: Herald ${line(r.herald!)}; floor ${line(r.floor!)}; the rows alone ${line(r.rows!)}; durable write ${line(r.durable!)}`,
      ),
    );
    const counted = await statementsPerCreate(
      (env) =>
        startHerald({ databaseUrl: db.url, dataDir: path.join(ctx.scratch, 'create-post'), secret: ws.secret, env }),
      async (url, n) => {
        const { headers, body } = spec(url);
        const id = `count${n}-${Date.now()}`;
        const response = await fetch(`${url}/v1/posts`, {
          method: 'POST',
          headers: { ...headers, 'idempotency-key': `bench-${id}` },
          body: body!.replaceAll('[<id>]', id),
        });
        if (response.status !== 201) throw new Error(`create answered ${response.status}: ${await response.text()}`);
      },
      path.join(ctx.scratch, 'statements.json'),
    );
    ctx.log(
      `create post: ${counted.total.toFixed(1)} statements per create:\n${counted.top.map(([text, count]) => `  ${count.toFixed(2)} × ${text}`).join('\n')}`,
    );
    const started = performance.now();
    await seedFutureQueue(db.url, ws, queued);
    ctx.log(`create post: seeded ${queued} future posts with their jobs in ${fmt.s(performance.now() - started)}`);
    // The durable floor writes its own table, so the queue does not touch it: it shows what the machine did meanwhile.
    const full = await alternate(rounds, spec, { herald, durable }, (r, round) =>
      ctx.log(
        `create post, ${queued} queued, round ${round + 1}: Herald ${line(r.herald!)}; durable write ${line(r.durable!)}`,
      ),
    );
    const h = empty.herald!;
    const f = empty.floor!;
    const d = empty.durable!;
    const w = empty.rows!;
    const ratio = h.requestsPerSecond / f.requestsPerSecond;
    const durableRatio = h.requestsPerSecond / d.requestsPerSecond;
    const queueRatio = full.herald!.requestsPerSecond / h.requestsPerSecond;
    const n = queued.toLocaleString('en');
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
        benchmark: `Create post, ${CONNECTIONS} conn: against one durable write`,
        herald: fmt.rps(h.requestsPerSecond),
        floor: fmt.rps(d.requestsPerSecond),
        ratio: durableRatio,
        target: `≥ ${DURABLE_TARGET} × floor`,
        pass: durableRatio >= DURABLE_TARGET,
        database: ctx.server.label,
      },
      {
        benchmark: `Create post, ${CONNECTIONS} conn: the rows alone (posts_create, no HTTP framework) against one durable write`,
        herald: fmt.rps(w.requestsPerSecond),
        floor: fmt.rps(d.requestsPerSecond),
        ratio: w.requestsPerSecond / d.requestsPerSecond,
        target: 'for the record',
        pass: null,
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
      {
        benchmark: 'Create post: statements sent per create (sequential, the worker’s polls included)',
        herald: counted.total.toFixed(1),
        floor: '1',
        ratio: null,
        target: '—',
        pass: null,
        database: ctx.server.label,
      },
      {
        benchmark: `Create post with ${n} future posts queued: throughput against the empty queue`,
        herald: `${fmt.rps(full.herald!.requestsPerSecond)} (durable write ${fmt.rps(full.durable!.requestsPerSecond)})`,
        floor: `${fmt.rps(h.requestsPerSecond)} (durable write ${fmt.rps(d.requestsPerSecond)})`,
        ratio: queueRatio,
        target: `≥ ${QUEUE_TARGET} × empty`,
        pass: queueRatio >= QUEUE_TARGET,
        database: ctx.server.label,
      },
    ];
  } finally {
    await db.drop();
  }
}
