// `npm run bench`: runs the benchmarks on the chosen PostgreSQL servers, prints one Markdown table and writes it
// with the machine's context to bench/results/latest.md. Timings are figures to read, never test assertions.
//
//   npm run bench                                   every benchmark, embedded PostgreSQL
//   npm run bench -- --db machine,embedded          both (machine: BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres)
//   npm run bench -- --only create-post,list-posts  some of them
//   npm run bench -- --quick                        small sizes, short runs (checks the harness)
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createPostBenchmark } from './create-post.ts';
import { listPostsBenchmark } from './list-posts.ts';
import { approvalsListBenchmark } from './approvals-list.ts';
import { analyticsSummaryBenchmark } from './analytics-summary.ts';
import { inboxIngestBenchmark } from './inbox-ingest.ts';
import { inboxListBenchmark } from './inbox-list.ts';
import { calendarEventsBenchmark } from './calendar-events.ts';
import { queueAddBenchmark } from './queue-add.ts';
import { automationsDueBenchmark } from './automations-due.ts';
import { schedulerBenchmark } from './scheduler.ts';
import { uploadBenchmark } from './upload.ts';
import { startupBenchmark } from './startup.ts';
import { facebookPublishBenchmark } from './facebook-publish.ts';
import { mediaConvertBenchmark } from './media-convert.ts';
import { openBenchServer, type ServerKind } from './lib/database.ts';
import { RAISED_LIMITS } from './lib/herald.ts';
import { markdownTable, type Benchmark, type Row } from './lib/report.ts';

const BENCHMARKS: Record<string, Benchmark> = {
  'create-post': createPostBenchmark,
  'list-posts': listPostsBenchmark,
  'approvals-list': approvalsListBenchmark,
  'analytics-summary': analyticsSummaryBenchmark,
  'inbox-ingest': inboxIngestBenchmark,
  'inbox-list': inboxListBenchmark,
  'calendar-events': calendarEventsBenchmark,
  'queue-add': queueAddBenchmark,
  'automations-due': automationsDueBenchmark,
  scheduler: schedulerBenchmark,
  upload: uploadBenchmark,
  startup: startupBenchmark,
  'facebook-publish': facebookPublishBenchmark,
  'media-convert': mediaConvertBenchmark,
};

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    db: { type: 'string' },
    quick: { type: 'boolean', default: false },
    out: { type: 'string', default: path.join(import.meta.dirname, 'results/latest.md') },
  },
});
const chosen = values.only ? values.only.split(',').map((s) => s.trim()) : Object.keys(BENCHMARKS);
for (const name of chosen)
  if (!BENCHMARKS[name]) throw new Error(`unknown benchmark "${name}"; known: ${Object.keys(BENCHMARKS).join(', ')}`);
const kinds = (values.db ?? (process.env.BENCH_DATABASE_URL ? 'machine,embedded' : 'embedded'))
  .split(',')
  .map((s) => s.trim()) as ServerKind[];
for (const kind of kinds)
  if (kind !== 'machine' && kind !== 'embedded') throw new Error(`--db takes machine and/or embedded (got "${kind}")`);

const log = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
const loadBefore = os.loadavg();
const startedAt = new Date();
const rows: Row[] = [];
const failures: string[] = [];
const scratch = await mkdtemp(path.join(os.tmpdir(), 'herald-bench-'));
try {
  for (const kind of kinds) {
    const server = await openBenchServer(kind);
    log(`PostgreSQL: ${server.label}`);
    try {
      for (const name of chosen) {
        log(`${name} on ${server.label}${values.quick ? ' (quick)' : ''}`);
        try {
          rows.push(
            ...(await BENCHMARKS[name]!({
              server,
              quick: values.quick,
              scratch: path.join(scratch, `${kind}-${name}`),
              log,
            })),
          );
        } catch (error) {
          failures.push(`${name} on ${server.label}: ${(error as Error).message}`);
          log(`${name} failed: ${(error as Error).stack}`);
        }
      }
    } finally {
      await server.close();
    }
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}

const loadAfter = os.loadavg();
const table = markdownTable(rows);
const report = [
  `# Herald benchmarks${values.quick ? ' (quick run: sizes reduced, not figures to quote)' : ''}`,
  '',
  `Run ${startedAt.toISOString()} – ${new Date().toISOString()} on ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}.`,
  `Load average (1/5/15 min) before: ${loadBefore.map((n) => n.toFixed(2)).join(' / ')}; after: ${loadAfter.map((n) => n.toFixed(2)).join(' / ')} (the machine is shared).`,
  `Raised limits: ${Object.entries(RAISED_LIMITS)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ')}.`,
  '',
  table,
  '',
  ...(failures.length > 0 ? ['Benchmarks that did not complete:', '', ...failures.map((f) => `- ${f}`), ''] : []),
].join('\n');
process.stdout.write(`\n${report}\n`);
await mkdir(path.dirname(values.out), { recursive: true });
await writeFile(values.out, report);
log(`written to ${values.out}`);
if (failures.length > 0) process.exitCode = 1;
