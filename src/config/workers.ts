// Settings of the worker processes: job polling and concurrency, the publishing engine's deadlines and retry
// budget, and webhook delivery.
import { integer } from './parsers.ts';
import { setting } from './setting.ts';

export const WORKER_SETTINGS = {
  pollIntervalMs: setting({
    name: 'HERALD_WORKER_POLL_INTERVAL_MS',
    default: 1000,
    parse: integer(50, 60_000),
    description: 'How often the worker looks for jobs that have become due.',
  }),
  concurrency: setting({
    name: 'HERALD_WORKER_CONCURRENCY',
    default: 400,
    parse: integer(1, 1000),
    description:
      'Publish jobs one worker process runs at the same time (they mostly wait on platforms; their database work is batched).',
  }),
  localQueue: setting({
    name: 'HERALD_WORKER_LOCAL_QUEUE',
    default: 400,
    parse: integer(1, 10_000),
    description: 'Publish jobs one worker process fetches and locks with one query; 1 fetches them one at a time.',
  }),
};

export const PUBLISHING_SETTINGS = {
  platformTimeoutMs: setting({
    name: 'HERALD_PLATFORM_TIMEOUT_MS',
    default: 15_000,
    parse: integer(100, 600_000),
    description:
      'Deadline of one platform API call; a call sent and unanswered by then has an unknown outcome and is reconciled, never blindly repeated.',
  }),
  heartbeatIntervalMs: setting({
    name: 'HERALD_HEARTBEAT_INTERVAL_MS',
    default: 5000,
    parse: integer(100, 60_000),
    description: 'How often each worker process records that it is alive.',
  }),
  workerDeadAfterMs: setting({
    name: 'HERALD_WORKER_DEAD_AFTER_MS',
    default: 30_000,
    parse: integer(500, 3_600_000),
    description: 'A worker silent this long is dead: its jobs are unlocked and its posts taken over.',
  }),
  overdueAfterMs: setting({
    name: 'HERALD_OVERDUE_AFTER_MS',
    default: 120_000,
    parse: integer(1000, 86_400_000),
    description:
      'A post target due this long ago and not yet started is overdue: requeued, and `/health/publishing` reports degraded.',
  }),
  maxAttempts: setting({
    name: 'HERALD_PUBLISH_MAX_ATTEMPTS',
    default: 8,
    parse: integer(1, 100),
    description: 'Attempts per target for transient failures and rate limits before it fails.',
  }),
};

export const WEBHOOK_SETTINGS = {
  concurrency: setting({
    name: 'HERALD_WEBHOOK_CONCURRENCY',
    default: 20,
    parse: integer(1, 1000),
    description:
      'Webhook deliveries one worker process sends at the same time. Deliveries have their own job runner, so a burst never delays publishing.',
  }),
  timeoutMs: setting({
    name: 'HERALD_WEBHOOK_TIMEOUT_MS',
    default: 10_000,
    parse: integer(100, 60_000),
    description:
      'Deadline of one webhook delivery attempt (connect to last byte); slower answers count as failures and are retried.',
  }),
  disableAfterHours: setting({
    name: 'HERALD_WEBHOOK_DISABLE_AFTER_HOURS',
    default: 120,
    parse: integer(1, 24 * 365),
    description:
      'A webhook endpoint whose every attempt has failed for this long (5 days by default) is disabled, and `webhook_endpoint.disabled` is emitted.',
  }),
  eventRetentionDays: setting({
    name: 'HERALD_EVENT_RETENTION_DAYS',
    default: 30,
    parse: integer(30, 3650),
    description:
      "Days events stay readable through `GET /v1/events` (at least 30, the webhook delivery log's own retention); older events are pruned hourly.",
  }),
};
