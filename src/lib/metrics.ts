// Prometheus metrics of one process (served as text at /metrics). One registry per container, so tests that
// build several apps in one process do not share counters.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'herald_process_' });
  return {
    registry,
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
      help: 'Publish attempts by platform and outcome (published, failed, retry).',
      labelNames: ['platform', 'outcome'] as const,
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
    rateLimitStoreErrors: new Counter({
      name: 'herald_rate_limit_store_errors_total',
      help: 'Rate-limit checks that failed open because the shared store (Redis) did not answer.',
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
