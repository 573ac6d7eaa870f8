// Drives HTTP load at a server from a separate process (load-client.ts, autocannon) and summarises it.
import path from 'node:path';
import { runNode } from './processes.ts';

export interface LoadSpec {
  url: string;
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
  /** Replace `[<id>]` with a new id in every request. */
  unique?: boolean;
  /** Stop after this many requests instead of after `seconds` (a fixed amount of work, e.g. 10,000 posts). */
  amount?: number;
}

export interface LoadResult {
  /** Successful (2xx) responses per second. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  ok: number;
  non2xx: number;
  errors: number;
  seconds: number;
}

const CLIENT = path.join(import.meta.dirname, 'load-client.ts');

export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const out = await runNode([CLIENT, JSON.stringify(spec)]);
  const result = JSON.parse(out.trim().split('\n').at(-1)!) as LoadResult;
  // A benchmark that measured errors would measure the wrong thing: say so rather than print a figure.
  if (result.non2xx > 0 || result.errors > 0) {
    const probe = await fetch(spec.url, {
      method: spec.method,
      headers: { ...spec.headers, 'idempotency-key': `probe-${Date.now()}` },
      body: spec.body?.replaceAll('[<id>]', `probe${Date.now()}`),
    });
    throw new Error(
      `${spec.method} ${spec.url}: ${result.non2xx} non-2xx answers and ${result.errors} errors out of ${result.ok + result.non2xx}; a probe got ${probe.status} ${(await probe.text()).slice(0, 300)}`,
    );
  }
  return result;
}

/** A short run whose figures are thrown away: JIT, pools and caches warm up on both sides alike. */
export async function warmUp(spec: LoadSpec, seconds = 3): Promise<void> {
  await runLoad({ ...spec, seconds });
}

/** Quantile of a sample (nearest rank); NaN for an empty one. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Of several runs of one side, the one with the highest throughput (a shared machine only ever slows a run down). */
export function best(runs: LoadResult[]): LoadResult {
  return runs.reduce((a, b) => (b.requestsPerSecond > a.requestsPerSecond ? b : a));
}

/** A server started for one round of load. */
export interface RoundServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * Herald and its floor in turn, `rounds` times: each started, checked, warmed up, loaded and stopped before the
 * other starts, so a burst of load from elsewhere on the machine hits one round, not one side. Each side's best.
 */
export async function alternateRounds(o: {
  rounds: number;
  spec: (url: string) => LoadSpec;
  herald: () => Promise<RoundServer>;
  floor: () => Promise<RoundServer>;
  /** Runs against Herald before its load: a check that it answers what the floor answers. */
  checkHerald?: (url: string) => Promise<void>;
  onRound?: (herald: LoadResult, floor: LoadResult, round: number) => void;
}): Promise<{ herald: LoadResult; floor: LoadResult }> {
  const heralds: LoadResult[] = [];
  const floors: LoadResult[] = [];
  const measure = async (
    start: () => Promise<RoundServer>,
    into: LoadResult[],
    check?: (url: string) => Promise<void>,
  ) => {
    const server = await start();
    try {
      await check?.(server.url);
      await warmUp(o.spec(server.url));
      into.push(await runLoad(o.spec(server.url)));
    } finally {
      await server.stop();
    }
  };
  for (let round = 0; round < o.rounds; round++) {
    await measure(o.herald, heralds, o.checkHerald);
    await measure(o.floor, floors);
    o.onRound?.(heralds.at(-1)!, floors.at(-1)!, round);
  }
  return { herald: best(heralds), floor: best(floors) };
}
