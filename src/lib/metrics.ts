// Prometheus metrics of one process (served as text at /metrics). One registry per container, so tests that
// build several apps in one process do not share counters.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { heraldVersion } from './version.ts';

/** What the pool gauges read of a pg pool. */
export interface PoolStats {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

export function createMetrics() {
  const registry = new Registry();
  // The process and runtime metrics under their standard names (process_cpu_seconds_total, nodejs_heap_*), which
  // the usual Node.js dashboards query; Herald's own metrics start with herald_ (docs/decisions.md).
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'herald_build_info',
    help: 'Always 1; the version label says which Herald this process runs.',
    labelNames: ['version'] as const,
    registers: [registry],
  }).set({ version: heraldVersion() }, 1);
  const pools = new Map<string, PoolStats>();
  const poolGauge = (name: string, help: string, read: (pool: PoolStats) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['pool'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [pool, stats] of pools) this.set({ pool }, read(stats));
      },
    });
  poolGauge(
    'herald_db_pool_connections',
    'Open connections of a PostgreSQL pool of this process.',
    (p) => p.totalCount,
  );
  poolGauge('herald_db_pool_idle_connections', 'Open connections of a pool not in use.', (p) => p.idleCount);
  poolGauge(
    'herald_db_pool_waiting_requests',
    'Queries waiting for a connection of a pool (all of its connections busy).',
    (p) => p.waitingCount,
  );
  return {
    registry,
    /** Reports a pool's use under `pool="<name>"` until the returned function is called. */
    watchPool(name: string, pool: PoolStats): () => void {
      pools.set(name, pool);
      return () => {
        if (pools.get(name) === pool) pools.delete(name);
      };
    },
    httpRequests: new Counter({
      name: 'herald_http_requests_total',
      help: 'HTTP requests by route pattern, method and status.',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'herald_http_request_duration_seconds',
      help: 'HTTP request latency by route pattern, method and status.',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    publishAttempts: new Counter({
      name: 'herald_publish_attempts_total',
      help: 'Publish attempts by platform, outcome (published, failed, retry) and error code (empty when published).',
      labelNames: ['platform', 'outcome', 'code'] as const,
      registers: [registry],
    }),
    publishDuration: new Histogram({
      name: 'herald_publish_attempt_duration_seconds',
      help: 'Duration of publish attempts (media, every part, reconciliation) by platform and outcome.',
      labelNames: ['platform', 'outcome'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    publishLateness: new Histogram({
      name: 'herald_publish_lateness_seconds',
      help: 'How long after it was due a target was first taken by a worker, by platform.',
      labelNames: ['platform'] as const,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    aiGenerations: new Counter({
      name: 'herald_ai_generations_total',
      help: 'Text generations answered, by task, engine (llm, template, extractive, rules) and fallback reason (empty when none).',
      labelNames: ['task', 'engine', 'fallback_reason'] as const,
      registers: [registry],
    }),
    aiProviderCalls: new Counter({
      name: 'herald_ai_provider_calls_total',
      help: 'Calls to the text-generation provider by outcome (ok, invalid_output, refused, timeout, unavailable).',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    aiTokens: new Counter({
      name: 'herald_ai_tokens_total',
      help: 'Tokens the text-generation provider counted (estimated where it did not say), by kind (prompt, completion).',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    aiLimitRefusals: new Counter({
      name: 'herald_ai_limit_refusals_total',
      help: "Provider calls refused by a workspace's daily budget, by what the caller got instead (error, deterministic).",
      labelNames: ['action'] as const,
      registers: [registry],
    }),
    rateLimitStoreErrors: new Counter({
      name: 'herald_rate_limit_store_errors_total',
      help: 'Rate-limit checks that failed open because the shared store (Redis) did not answer.',
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
