// What every benchmark returns (rows of one table) and how the table is printed.
import type { BenchServer } from './database.ts';

export interface BenchContext {
  server: BenchServer;
  /** Smaller sizes and shorter runs: checks the harness end to end, not figures to quote. */
  quick: boolean;
  /** A scratch directory of this run (data dirs, uploads); removed at the end. */
  scratch: string;
  log(message: string): void;
}

export interface Row {
  benchmark: string;
  herald: string;
  floor: string;
  /** Herald ÷ floor on the figure the target is about (higher is better), if there is one. */
  ratio: number | null;
  target: string;
  /** null: informational, no target. */
  pass: boolean | null;
  database: string;
}

export type Benchmark = (ctx: BenchContext) => Promise<Row[]>;

export const fmt = {
  rps: (n: number) => `${n.toFixed(0)} req/s`,
  ms: (n: number) => (n >= 100 ? `${n.toFixed(0)} ms` : `${n.toFixed(1)} ms`),
  s: (ms: number) => `${(ms / 1000).toFixed(2)} s`,
  mib: (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`,
};

export function markdownTable(rows: Row[]): string {
  const cells = (r: Row) => [
    r.benchmark,
    r.herald,
    r.floor,
    r.ratio === null ? '—' : r.ratio.toFixed(2),
    r.target,
    r.pass === null ? '—' : r.pass ? 'pass' : '**FAIL**',
    r.database,
  ];
  const head = ['Benchmark', 'Herald', 'Floor', 'Ratio', 'Target', 'Result', 'PostgreSQL'];
  const escape = (s: string) => s.replaceAll('|', '\\|');
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${cells(r).map(escape).join(' | ')} |`),
  ].join('\n');
}
