// A profiling aid, preloaded into a measured process: counts every statement sent through `pg` (text up to its
// first 100 characters, whitespace folded) and writes the tally as JSON to BENCH_STATEMENTS_OUT whenever the
// process gets SIGUSR2, and when it exits. Used to see how many round trips one request makes (bench/create-post.ts).
//
//   BENCH_STATEMENTS_OUT=/tmp/statements.json node --import ./bench/lib/count-statements.ts bin/herald.js serve
import { writeFileSync } from 'node:fs';
import pg from 'pg';

const out = process.env.BENCH_STATEMENTS_OUT ?? 'statements.json';
const tally = new Map<string, number>();
const original = pg.Client.prototype.query as (...args: unknown[]) => unknown;

pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0];
  const text = typeof first === 'string' ? first : (first as { text?: string } | null)?.text;
  if (text) {
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 100);
    tally.set(key, (tally.get(key) ?? 0) + 1);
  }
  return original.apply(this, args);
} as typeof pg.Client.prototype.query;

function dump(): void {
  const sorted = [...tally].sort((a, b) => b[1] - a[1]);
  try {
    writeFileSync(out, JSON.stringify(Object.fromEntries(sorted), null, 1));
  } catch (error) {
    process.stderr.write(`count-statements: ${(error as Error).message}\n`);
  }
}
process.on('exit', dump);
process.on('SIGUSR2', dump);
