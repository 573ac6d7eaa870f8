// The alert rules (deploy/prometheus/herald.rules.yml) and the code cannot drift apart: every metric a rule names
// is one Herald's /metrics exports, and every alert is explained in docs/operations.md. (CI also runs
// `promtool check rules` on the file.)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { startWorker } from '../src/jobs/worker.ts';
import { startDeliveryRunner } from '../src/jobs/deliveries.ts';
import { buildTestApp, type TestApp } from './helpers/app.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

interface RuleFile {
  groups: { name: string; rules: { alert?: string; record?: string; expr: string }[] }[];
}

/** Prometheus's own series, which no exporter defines. */
const PROMETHEUS_SERIES = new Set(['up']);

/** The metric names in a PromQL expression: identifiers before `{`, `[`, `)` or an operator, minus functions and keywords. */
function metricNames(expr: string): string[] {
  const withoutStrings = expr.replace(/"[^"]*"/g, '""');
  const withoutLabels = withoutStrings.replace(/\{[^}]*\}/g, '{}');
  const withoutGrouping = withoutLabels.replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  const words = [...withoutGrouping.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()/g)].map((m) => m[1]!);
  const keywords = new Set(['and', 'or', 'unless', 'on', 'bool', 'offset', 'by', 'without', 'ignoring']);
  return [...new Set(words.filter((w) => !keywords.has(w) && !/^\d/.test(w) && !/^[smhdwy]$/.test(w)))];
}

let t: TestApp;
let exported: Set<string>;
let stops: (() => Promise<void>)[] = [];

before(async () => {
  t = await buildTestApp();
  // A worker's counters are created with its runners: start both, as `serve --role worker` does.
  const worker = await startWorker(t.container, { waker: false });
  const deliveries = await startDeliveryRunner(t.container);
  stops = [() => worker.stop(), () => deliveries.stop()];
  const res = await t.inject({ method: 'GET', url: '/metrics' });
  assert.equal(res.statusCode, 200);
  exported = new Set([...res.body.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
});
after(async () => {
  for (const stop of stops) await stop();
  await t.close();
});

test('every metric the alert rules name is one Herald exports', async () => {
  const rules = parse(await readFile(path.join(ROOT, 'deploy/prometheus/herald.rules.yml'), 'utf8')) as RuleFile;
  const named = rules.groups.flatMap((g) => g.rules.flatMap((r) => metricNames(r.expr)));
  assert.ok(named.length >= 10, `found ${named.join(', ')}`);
  const missing = named.filter(
    (n) => !PROMETHEUS_SERIES.has(n) && !exported.has(n.replace(/_(bucket|sum|count)$/, '')),
  );
  assert.deepEqual(missing, [], 'rules name metrics /metrics does not export');
});

test('the name extraction sees through functions, labels and grouping', () => {
  assert.deepEqual(
    metricNames(
      'max by (queue) (herald_jobs_failed{queue="x"}) > 0 and on() (sum(increase(a_total[15m])) or vector(0)) == 0',
    ),
    ['herald_jobs_failed', 'a_total'],
  );
});

test('docs/operations.md explains every alert of the rules file', async () => {
  const rules = parse(await readFile(path.join(ROOT, 'deploy/prometheus/herald.rules.yml'), 'utf8')) as RuleFile;
  const doc = await readFile(path.join(ROOT, 'docs/operations.md'), 'utf8');
  for (const alert of rules.groups.flatMap((g) => g.rules.map((r) => r.alert)).filter(Boolean))
    assert.ok(doc.includes(`\`${alert}\``), `docs/operations.md does not mention ${alert}`);
});
