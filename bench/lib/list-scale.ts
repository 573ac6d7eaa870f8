// The driver the list benchmarks share (approvals-list, inbox-list, calendar-events): seed the workspace up to each
// size in turn, load Herald's list endpoint and a floor server running the same query through `pg` in alternating
// rounds, and report p99 against the floor at each size, then Herald's p99 growth from the smallest size to the
// largest.
import path from 'node:path';
import { CONNECTIONS, floorEnv } from '../create-post.ts';
import { prepareWorkspace, startHerald, type Workspace } from './herald.ts';
import { alternateRounds, type LoadResult, type LoadSpec } from './load.ts';
import { startNodeServer } from './processes.ts';
import { fmt, type BenchContext, type Row } from './report.ts';

/** Herald's p99 at most this many times the floor's, at each size. */
const MAX_P99_RATIO = 2;

export const sizeLabel = (size: number) => (size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`);

export interface ListScale {
  /** The list's name in rows: "Approvals list". */
  name: string;
  /** Its name in log lines: "approvals list". */
  logName: string;
  /** What a seeded row is called: "items", "posts". */
  unit: string;
  /** The row's words for one size, after the name: `status=pending, 1k items`. */
  describe(size: number): string;
  /** The endpoint's path and query under Herald's and the floor's base URL. */
  path: string;
  /** The floor server's script, under bench/. */
  floor: string;
  /** The data directory's prefix, per size. */
  dataDir: string;
  sizes: number[];
  /** Adds rows number `from`…`to`. */
  seed(url: string, ws: Workspace, from: number, to: number): Promise<void>;
  /** Why Herald's first page is not the expected one, or undefined. */
  check(data: { items: Array<{ status?: string }>; has_more?: boolean }): string | undefined;
  /** The flatness target: its text and whether a growth passes it. */
  flat: { target: string; pass(growth: number): boolean };
}

export async function listAtSizes(ctx: BenchContext, list: ListScale): Promise<Row[]> {
  const seconds = ctx.quick ? 5 : 15;
  const rounds = ctx.quick ? 1 : 2;
  const db = await ctx.server.createDatabase();
  try {
    const ws = await prepareWorkspace(db.url);
    const spec = (url: string): LoadSpec => ({
      url: `${url}${list.path}`,
      method: 'GET',
      headers: { authorization: `Bearer ${ws.key}` },
      connections: CONNECTIONS,
      seconds,
    });
    const measured: Array<{ size: number; herald: LoadResult; floor: LoadResult }> = [];
    let seeded = 0;
    for (const size of list.sizes) {
      const started = performance.now();
      await list.seed(db.url, ws, seeded + 1, size);
      ctx.log(`${list.logName}: seeded ${list.unit} ${seeded + 1}–${size} in ${fmt.s(performance.now() - started)}`);
      seeded = size;
      const { herald: h, floor: f } = await alternateRounds({
        rounds,
        spec,
        herald: () =>
          startHerald({
            databaseUrl: db.url,
            dataDir: path.join(ctx.scratch, `${list.dataDir}-${size}`),
            secret: ws.secret,
          }),
        floor: () => startNodeServer([path.join(import.meta.dirname, '..', list.floor)], floorEnv(db.url, ws)),
        async checkHerald(url) {
          const probe = (await (await fetch(spec(url).url, { headers: spec(url).headers })).json()) as {
            data: { items: Array<{ status?: string }>; has_more?: boolean };
          };
          const wrong = list.check(probe.data);
          if (wrong) throw new Error(wrong);
        },
      });
      ctx.log(
        `${list.logName} at ${sizeLabel(size)}: Herald ${fmt.rps(h.requestsPerSecond)} p99 ${fmt.ms(h.p99Ms)}; floor ${fmt.rps(f.requestsPerSecond)} p99 ${fmt.ms(f.p99Ms)}`,
      );
      measured.push({ size, herald: h, floor: f });
    }
    const rows: Row[] = measured.map(({ size, herald, floor }) => ({
      benchmark: `${list.name} (${list.describe(size)}), ${CONNECTIONS} conn: p99 (best of ${rounds})`,
      herald: `p99 ${fmt.ms(herald.p99Ms)}, ${fmt.rps(herald.requestsPerSecond)}`,
      floor: `p99 ${fmt.ms(floor.p99Ms)}, ${fmt.rps(floor.requestsPerSecond)}`,
      // Floor p99 ÷ Herald p99: higher is better; 0.5 is the target's edge (Herald at 2 × the floor).
      ratio: floor.p99Ms / herald.p99Ms,
      target: `p99 ≤ ${MAX_P99_RATIO} × floor`,
      pass: herald.p99Ms <= MAX_P99_RATIO * floor.p99Ms,
      database: ctx.server.label,
    }));
    const small = measured[0]!;
    const large = measured.at(-1)!;
    if (large !== small) {
      const growth = large.herald.p99Ms / small.herald.p99Ms;
      rows.push({
        benchmark: `${list.name}: p99 from ${sizeLabel(small.size)} to ${sizeLabel(large.size)} ${list.unit}`,
        herald: `${fmt.ms(small.herald.p99Ms)} → ${fmt.ms(large.herald.p99Ms)} (×${growth.toFixed(2)})`,
        floor: `${fmt.ms(small.floor.p99Ms)} → ${fmt.ms(large.floor.p99Ms)} (×${(large.floor.p99Ms / small.floor.p99Ms).toFixed(2)})`,
        ratio: null,
        target: list.flat.target,
        pass: list.flat.pass(growth),
        database: ctx.server.label,
      });
    }
    return rows;
  } finally {
    await db.drop();
  }
}
