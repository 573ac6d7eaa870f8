// The worker role: graphile-worker running Herald's task list on the shared database, plus what makes it
// trustworthy — heartbeats and the sweeper (liveness.ts) and the waker that starts scheduled posts on time
// (waker.ts). Any number of worker processes may run; jobs are claimed with SKIP LOCKED.
import { EventEmitter } from 'node:events';
import { Logger as WorkerLogger, run, type Runner, type TaskList, type WorkerEvents, type WorkerPool } from 'graphile-worker';
import type { Container } from '../container.ts';
import { newId } from '../lib/ids.ts';
import type { Logger } from '../lib/logger.ts';
import { startLiveness } from './liveness.ts';
import { cleanupTask } from './tasks/cleanup.ts';
import { publishTargetTask } from './tasks/publish-target.ts';
import { startWaker } from './waker.ts';

/** The tasks this build of Herald runs. A job whose task is absent here waits in the queue for a worker that has it. */
export function taskList(container: Container): TaskList {
  return {
    cleanup: cleanupTask({ pool: container.pool, logger: container.logger }),
    publish_target: publishTargetTask({
      pool: container.pool, access: container.platformAccess, media: container.media, metrics: container.metrics,
      logger: container.logger, clock: container.clock, maxAttempts: container.config.publishing.maxAttempts,
    }),
  };
}

// Housekeeping, as graphile-worker crontab lines (minute hour day month weekday task).
const CRONTAB = '*/10 * * * * cleanup';

function workerLogger(logger: Logger): WorkerLogger {
  return new WorkerLogger((scope) => (level, message, meta) => {
    const line = { ...scope, ...(meta ?? {}) };
    if (level === 'error') logger.error(line, message);
    else if (level === 'warning') logger.warn(line, message);
    else logger.debug(line, message);
  });
}

export interface WorkerHandle {
  runner: Runner;
  /** This process's id in worker_heartbeats. */
  processId: string;
  stop(): Promise<void>;
}

/** `waker: false` leaves graphile-worker's polling alone (the benchmark's baseline). */
export async function startWorker(container: Container, options: { waker?: boolean } = {}): Promise<WorkerHandle> {
  const { config } = container;
  const processId = newId('wrk');
  const jobWorkerIds = new Set<string>();
  let pool: WorkerPool | undefined;
  const events = new EventEmitter() as WorkerEvents;
  events.on('pool:create', ({ workerPool }) => {
    pool = workerPool;
    // graphile-worker 0.18 locks jobs in the pool's name (jobs.locked_by = the pool id), not a worker's.
    jobWorkerIds.add(workerPool.id);
  });
  events.on('worker:create', ({ worker }) => {
    jobWorkerIds.add(worker.workerId);
  });
  const runner = await run({
    pgPool: container.pool,
    taskList: taskList(container),
    crontab: CRONTAB,
    concurrency: config.workerConcurrency,
    pollInterval: config.workerPollIntervalMs,
    noHandleSignals: true,
    logger: workerLogger(container.logger),
    events,
  });
  const liveness = startLiveness({
    pool: container.pool, logger: container.logger, processId, jobWorkerIds: () => [...jobWorkerIds],
    heartbeatIntervalMs: config.publishing.heartbeatIntervalMs, deadAfterMs: config.publishing.workerDeadAfterMs, overdueAfterMs: config.publishing.overdueAfterMs,
  });
  const waker = options.waker === false ? { stop: async () => {} } : await startWaker({ pool: container.pool, logger: container.logger, nudge: () => pool?.nudge(config.workerConcurrency), refreshMs: config.workerPollIntervalMs });
  return {
    runner,
    processId,
    async stop() {
      await waker.stop();
      await runner.stop();
      await liveness.stop();
    },
  };
}
