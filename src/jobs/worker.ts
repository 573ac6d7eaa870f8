// The worker role: graphile-worker running Herald's task list on the shared database, plus what makes it
// trustworthy — heartbeats of its lock owners with the dead-worker sweep (liveness.ts), the publishing sweep
// (publish-sweeper.ts), and the waker that starts scheduled posts on time (waker.ts). Any number of worker
// processes may run; jobs are claimed with SKIP LOCKED.
import { EventEmitter } from 'node:events';
import {
  Logger as WorkerLogger,
  run,
  type Runner,
  type TaskList,
  type WorkerEvents,
  type WorkerPool,
} from 'graphile-worker';
import type { Config } from '../config.ts';
import type { Container } from '../container.ts';
import { createPool } from '../db/pool.ts';
import type { Logger } from '../lib/logger.ts';
import { startLiveness, trackLockOwners } from './liveness.ts';
import { startPublishSweeper } from './publish-sweeper.ts';
import { cleanupTask } from './tasks/cleanup.ts';
import { expireApprovalsTask } from './tasks/expire-approvals.ts';
import { publishTargetTask } from './tasks/publish-target.ts';
import { refreshConnectionsTask } from './tasks/refresh-connections.ts';
import { repurposeJobTask } from './tasks/repurpose.ts';
import { importPostsTask } from './tasks/import-posts.ts';
import { runAutomationTask } from './tasks/run-automation.ts';
import { scheduleAutomationsTask } from './tasks/schedule-automations.ts';
import { recyclePostsTask } from './tasks/recycle-posts.ts';
import { feedCaps } from '../features/automations/automations.feed.ts';
import { repurposeFetchCaps } from '../features/repurpose/repurpose.extract.ts';
import { syncMetricsTask } from './tasks/sync-metrics.ts';
import { ingestInboxTask } from './tasks/ingest-inbox.ts';
import { sendInboxReplyTask } from './tasks/send-inbox-reply.ts';
import { guardLocalQueueRelease } from './release-guard.ts';
import { superviseRunner } from './supervisor.ts';
import { startWaker } from './waker.ts';

/** The tasks this build of Herald runs. A job whose task is absent here waits in the queue for a worker that has it. */
export function taskList(container: Container): TaskList {
  return {
    cleanup: cleanupTask({ pool: container.pool, logger: container.logger }),
    expire_approvals: expireApprovalsTask({
      pool: container.pool,
      clock: container.clock,
      logger: container.logger,
      approvals: container.approvals,
    }),
    ...container.media.tasks(),
    publish_target: publishTargetTask({
      pool: container.pool,
      access: container.platformAccess,
      media: container.mediaLibrary,
      postMedia: container.media,
      metrics: container.metrics,
      logger: container.logger,
      clock: container.clock,
      maxAttempts: container.config.publishing.maxAttempts,
    }),
    repurpose: repurposeJobTask({
      pool: container.pool,
      ai: container.ai,
      posts: container.posts,
      clock: container.clock,
      logger: container.logger,
      caps: repurposeFetchCaps(container.outboundGuard, container.config.media.fetchTimeoutSeconds),
    }),
    import_posts: importPostsTask({
      pool: container.pool,
      posts: container.posts,
      media: container.media,
      guard: container.outboundGuard,
      logger: container.logger,
    }),
    run_automation: runAutomationTask({
      pool: container.pool,
      ai: container.ai,
      posts: container.posts,
      media: container.media,
      clock: container.clock,
      logger: container.logger,
      caps: feedCaps(container.outboundGuard, container.config.media.fetchTimeoutSeconds),
      pauseAfterFailures: container.config.automations.pauseAfterFailures,
    }),
    schedule_automations: scheduleAutomationsTask({
      pool: container.pool,
      clock: container.clock,
      logger: container.logger,
      batchSize: container.config.automations.schedulerBatch,
      rssPollMinutes: container.config.automations.rssPollMinutes,
    }),
    recycle_posts: recyclePostsTask({
      pool: container.pool,
      posts: container.posts,
      clock: container.clock,
      logger: container.logger,
    }),
    refresh_connections: refreshConnectionsTask({
      pool: container.pool,
      access: container.platformAccess,
      logger: container.logger,
      clock: container.clock,
    }),
    sync_metrics: syncMetricsTask({
      pool: container.pool,
      access: container.platformAccess,
      logger: container.logger,
      clock: container.clock,
      maxAgeDays: container.config.analytics.syncMaxAgeDays,
      batchSize: container.config.analytics.syncBatchSize,
    }),
    ingest_inbox: ingestInboxTask({
      pool: container.pool,
      access: container.platformAccess,
      logger: container.logger,
      clock: container.clock,
      pollSeconds: container.config.inboxIngest.pollSeconds,
      batchSize: container.config.inboxIngest.batchSize,
      maxPages: container.config.inboxIngest.maxPages,
    }),
    send_inbox_reply: sendInboxReplyTask({
      pool: container.pool,
      sendReply: (item, text, opts) => container.inboxSender.send(item, text, opts),
    }),
  };
}

// Housekeeping, as graphile-worker crontab lines (minute hour day month weekday task).
const CRONTAB = [
  '*/10 * * * * cleanup',
  '*/15 * * * * media_cleanup',
  '*/5 * * * * refresh_connections',
  '* * * * * sync_metrics',
  '* * * * * ingest_inbox',
  '* * * * * expire_approvals',
  '* * * * * schedule_automations',
  '* * * * * recycle_posts',
].join('\n');

/** graphile-worker logs through the process logger (its debug chatter at debug level). */
export function workerLogger(logger: Logger): WorkerLogger {
  return new WorkerLogger((scope) => (level, message, meta) => {
    const line = { ...scope, ...(meta ?? {}) };
    if (level === 'error') logger.error(line, message);
    else if (level === 'warning') logger.warn(line, message);
    else logger.debug(line, message);
  });
}

/**
 * graphile-worker settings of the publishing runner (the scheduler benchmark's floor uses the same).
 * - Without batching, graphile-worker marks a job done or failed with a promise nobody awaits: when the
 *   database is away at that moment (a restart, a failover), the rejection kills the process. Batched (even
 *   with no delay), such a failure shuts the runner down cleanly instead, and the supervisor restarts it.
 * - The local queue fetches and locks up to `workerLocalQueue` due jobs with one query: with many jobs due at
 *   once, a hundred runners each polling for one job spend more on finding jobs than on running them. Jobs
 *   locked there belong to the pool's id, which the liveness heartbeats cover like the workers' own.
 */
export function runnerPreset(config: Pick<Config, 'workerLocalQueue'>): GraphileConfig.Preset {
  return {
    worker: {
      completeJobBatchDelay: 0,
      failJobBatchDelay: 0,
      ...(config.workerLocalQueue > 1 ? { localQueue: { size: config.workerLocalQueue } } : {}),
    },
  };
}

/**
 * Connections of graphile-worker's own pool (fetching jobs, batched completions and failures, its LISTEN, the
 * crontab). graphile-worker warns when its pool is smaller than its concurrency, since each of its job workers
 * polls for jobs on its own; with the local queue they do not (one fetch serves them all) and the jobs' own database
 * work goes through the process pool (`HERALD_DB_POOL_SIZE`), so a pool as large as the concurrency only says what
 * is true: it opens the few connections it uses (docs/decisions.md, "The job runner's pool is as large as its
 * concurrency"). Without the local queue the process pool's size is kept, and the warning stands, as it should.
 */
export function jobPoolSize(config: Pick<Config, 'workerConcurrency' | 'workerLocalQueue' | 'databasePoolSize'>) {
  return config.workerLocalQueue > 1 ? config.workerConcurrency : config.databasePoolSize;
}

export interface WorkerHandle {
  /** The job runner in use (a new one after the runner had to be restarted). */
  readonly runner: Runner;
  /** False while the runner waits to be restarted after a database outage, and once stopped. */
  readonly running: boolean;
  stop(): Promise<void>;
}

/** `waker: false` leaves graphile-worker's polling alone (the benchmark's baseline). */
export async function startWorker(container: Container, options: { waker?: boolean } = {}): Promise<WorkerHandle> {
  const { config, pool, logger } = container;
  const events = new EventEmitter() as WorkerEvents;
  let workerPool: WorkerPool | undefined;
  events.on('pool:create', ({ workerPool: created }) => {
    workerPool = created;
  });
  const owners = trackLockOwners(events);
  const jobPool = createPool(container.connectionString, jobPoolSize(config), 'herald-jobs');
  const unwatchPool = container.metrics.watchPool('jobs', jobPool);
  const startRunner = () =>
    run({
      pgPool: jobPool,
      taskList: taskList(container),
      crontab: CRONTAB,
      concurrency: config.workerConcurrency,
      pollInterval: config.workerPollIntervalMs,
      noHandleSignals: true,
      logger: workerLogger(logger),
      events,
      preset: runnerPreset(config),
    });
  const releaseGuard = guardLocalQueueRelease(logger);
  let supervised: Awaited<ReturnType<typeof superviseRunner>>;
  try {
    supervised = await superviseRunner({ name: 'publishing', start: startRunner, events, owners, logger });
  } catch (error) {
    releaseGuard.remove();
    unwatchPool();
    await jobPool.end();
    throw error;
  }
  const nudge = () => {
    try {
      workerPool?.nudge(config.workerConcurrency);
    } catch {
      // The pool is shutting down (database lost): its successor polls on its own.
    }
  };
  const { heartbeatIntervalMs: intervalMs, workerDeadAfterMs: deadAfterMs, overdueAfterMs } = config.publishing;
  const liveness = startLiveness({
    pool,
    schema: 'graphile_worker',
    owners,
    logger,
    options: { intervalMs, deadAfterMs },
  });
  const sweeper = startPublishSweeper({ pool, logger, intervalMs, graceMs: deadAfterMs, overdueAfterMs });
  const waker =
    options.waker === false
      ? { stop: async () => {} }
      : await startWaker({ pool, logger, nudge, refreshMs: config.workerPollIntervalMs });
  return {
    get runner() {
      return supervised.runner;
    },
    get running() {
      return supervised.running;
    },
    async stop() {
      await waker.stop();
      await supervised.stop();
      await sweeper.stop();
      await liveness.stop();
      releaseGuard.remove();
      unwatchPool();
      await jobPool.end();
    },
  };
}
