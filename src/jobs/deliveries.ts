// The delivery runner: a second graphile-worker runner for webhook deliveries only, with its own jobs schema,
// task list, concurrency and database pool, so a burst of deliveries can never hold up publishing (the main
// runner neither scans these jobs nor waits for these connections). `herald serve` starts it for roles `all`
// and `worker`; any number of processes may run it.
import { EventEmitter } from 'node:events';
import { run, type Runner, type WorkerEvents } from 'graphile-worker';
import { Counter, Histogram } from 'prom-client';
import type { Container } from '../container.ts';
import { JOB_SCHEMAS } from '../db/migrate.ts';
import { createPool } from '../db/pool.ts';
import { createDeliverer } from '../features/webhooks/delivery.ts';
import type { Clock } from '../lib/clock.ts';
import { DELIVER_WEBHOOK_TASK } from '../app/delivery-queue.ts';
import { DEFAULT_LIVENESS, startLiveness, trackLockOwners, type LivenessOptions } from './liveness.ts';
import { deliverWebhookTask } from './tasks/deliver-webhook.ts';
import { pruneWebhookDeliveriesTask } from './tasks/prune-webhook-deliveries.ts';
import { pruneEventsTask } from './tasks/prune-events.ts';
import { superviseRunner, type SupervisedRunner } from './supervisor.ts';
import { workerLogger } from './worker.ts';

export interface DeliveryRunner {
  /** The runner in use (a new one after a database outage forced a restart). */
  readonly runner: Runner;
  /** False while the runner waits to be restarted after a database outage, and once stopped. */
  readonly running: boolean;
  stop(): Promise<void>;
}

export interface DeliveryRunnerOptions {
  /** Overrides the container's clock for the retry schedule (tests). */
  clock?: Clock;
  liveness?: LivenessOptions;
}

/** Adds `-c <setting>` to the connection's startup options (kept alongside any the URL already has). */
function withSessionOption(connectionString: string, setting: string): string {
  const url = new URL(connectionString);
  url.searchParams.set('options', [url.searchParams.get('options'), `-c ${setting}`].filter(Boolean).join(' '));
  return url.toString();
}

function attemptMetrics(container: Container) {
  const { registry } = container.metrics;
  const attempts =
    (registry.getSingleMetric('herald_webhook_attempts_total') as Counter<'result'> | undefined) ??
    new Counter({
      name: 'herald_webhook_attempts_total',
      help: 'Webhook delivery attempts by result (delivered or failed).',
      labelNames: ['result'] as const,
      registers: [registry],
    });
  const duration =
    (registry.getSingleMetric('herald_webhook_attempt_duration_seconds') as Histogram | undefined) ??
    new Histogram({
      name: 'herald_webhook_attempt_duration_seconds',
      help: 'Time from sending a webhook to its answer (or failure).',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
  return (result: 'delivered' | 'failed', ms: number) => {
    attempts.inc({ result });
    duration.observe(ms / 1000);
  };
}

export async function startDeliveryRunner(
  container: Container,
  options: DeliveryRunnerOptions = {},
): Promise<DeliveryRunner> {
  const { config, logger } = container;
  const concurrency = config.webhooks.concurrency;
  const clock = options.clock ?? container.clock;
  // A connection per running attempt, plus graphile-worker's LISTEN and its fetches.
  // This pool only records attempts and moves delivery jobs on; a commit lost in a database crash means an
  // attempt is made again, with the same webhook-id, which at-least-once delivery allows. Not waiting for each
  // commit's flush is what lets deliveries keep up with a burst (docs/decisions.md). Deliveries themselves are
  // created by the caller's transaction, with its own durability.
  const pool = createPool(
    withSessionOption(container.connectionString, 'synchronous_commit=off'),
    concurrency + 2,
    'herald-deliveries',
  );
  const unwatchPool = container.metrics.watchPool('deliveries', pool);
  const deliver = createDeliverer({
    pool,
    keyring: container.keyring,
    guard: container.outboundGuard,
    clock,
    logger,
    timeoutMs: config.webhooks.timeoutMs,
    disableAfterMs: config.webhooks.disableAfterMs,
    onAttempt: attemptMetrics(container),
  });
  const events: WorkerEvents = new EventEmitter() as WorkerEvents;
  const owners = trackLockOwners(events);
  let supervised: SupervisedRunner;
  try {
    supervised = await superviseRunner({
      name: 'deliveries',
      events,
      owners,
      logger,
      start: () =>
        run({
          pgPool: pool,
          schema: JOB_SCHEMAS.deliveries,
          taskList: {
            [DELIVER_WEBHOOK_TASK]: deliverWebhookTask(deliver),
            prune_webhook_deliveries: pruneWebhookDeliveriesTask({ pool, clock, logger }),
            prune_events: pruneEventsTask({
              pool,
              clock,
              logger,
              retentionDays: config.webhooks.eventRetentionDays,
            }),
          },
          crontab: '17 * * * * prune_webhook_deliveries\n27 * * * * prune_events',
          concurrency,
          pollInterval: config.workerPollIntervalMs,
          noHandleSignals: true,
          logger: workerLogger(logger),
          events,
          // Jobs fetched and completed in batches: a burst costs a fraction of the queue round trips. Jobs held in
          // the local queue are locked under the pool's id, which the liveness sweeper also watches.
          // Failures batched too (no delay): unbatched, a failure the database misses is an unawaited rejection.
          preset: { worker: { localQueue: { size: concurrency }, completeJobBatchDelay: 10, failJobBatchDelay: 0 } },
        }),
    });
  } catch (error) {
    unwatchPool();
    await pool.end();
    throw error;
  }
  const liveness = startLiveness({
    pool,
    schema: JOB_SCHEMAS.deliveries,
    owners,
    logger,
    options: options.liveness ?? DEFAULT_LIVENESS,
  });
  return {
    get runner() {
      return supervised.runner;
    },
    get running() {
      return supervised.running;
    },
    async stop() {
      await supervised.stop();
      await liveness.stop();
      unwatchPool();
      await pool.end();
    },
  };
}
