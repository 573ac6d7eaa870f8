// The worker role: graphile-worker running Herald's task list on the shared database. Any number of worker
// processes may run; jobs are claimed with SKIP LOCKED, so each runs once per attempt.
import { Logger as WorkerLogger, run, type Runner, type TaskList } from 'graphile-worker';
import type { Container } from '../container.ts';
import type { Logger } from '../lib/logger.ts';
import { cleanupTask } from './tasks/cleanup.ts';

/** The tasks this build of Herald runs. A job whose task is absent here waits in the queue for a worker that has it. */
export function taskList(container: Container): TaskList {
  return {
    cleanup: cleanupTask({ pool: container.pool, logger: container.logger }),
    ...container.media.tasks(),
  };
}

// Housekeeping, as graphile-worker crontab lines (minute hour day month weekday task).
const CRONTAB = ['*/10 * * * * cleanup', '*/15 * * * * media_cleanup'].join('\n');

/** graphile-worker logs through the process logger (its debug chatter at debug level). */
export function workerLogger(logger: Logger): WorkerLogger {
  return new WorkerLogger((scope) => (level, message, meta) => {
    const line = { ...scope, ...(meta ?? {}) };
    if (level === 'error') logger.error(line, message);
    else if (level === 'warning') logger.warn(line, message);
    else logger.debug(line, message);
  });
}

export async function startWorker(container: Container): Promise<Runner> {
  return run({
    pgPool: container.pool,
    taskList: taskList(container),
    crontab: CRONTAB,
    concurrency: container.config.workerConcurrency,
    pollInterval: container.config.workerPollIntervalMs,
    noHandleSignals: true,
    logger: workerLogger(container.logger),
  });
}
