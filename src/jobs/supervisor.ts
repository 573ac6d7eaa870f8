// Keeps a graphile-worker runner going through database outages. graphile-worker does not survive all of them: a
// job worker that cannot record the end of its job dies (its pool goes on without it, still holding the job), or
// the whole runner shuts down (a failed batch of completions). Either way the supervisor stops what is left of the
// runner, starts a new one once the database answers (back-off 1 s to 10 s), and drops the old pool's id from the
// heartbeats, so that the dead-worker sweep unlocks the jobs it held, exactly as after a crash.
import type { Runner, WorkerEvents, WorkerPool } from 'graphile-worker';
import type { Logger } from '../lib/logger.ts';

export interface SupervisedRunner {
  /** The runner in use (a new one after a restart). */
  readonly runner: Runner;
  /** False while a lost runner waits to be restarted, and once stopped (/health/ready of a process that runs it). */
  readonly running: boolean;
  stop(): Promise<void>;
}

export async function superviseRunner(o: {
  name: string;
  start: () => Promise<Runner>;
  events: WorkerEvents;
  owners: Set<string>;
  logger: Logger;
}): Promise<SupervisedRunner> {
  let pool: WorkerPool | undefined;
  o.events.on('pool:create', ({ workerPool }) => {
    pool = workerPool;
  });
  let stopping = false;
  let runner = await o.start();
  let restarting: Promise<void> | undefined;

  const restart = (reason: string) => {
    if (stopping || restarting) return;
    const old = runner;
    const oldPoolId = pool?.id;
    o.logger.warn({ runner: o.name, reason }, 'job runner lost the database; restarting it when the database is back');
    restarting = (async () => {
      let deadline: NodeJS.Timeout | undefined;
      await Promise.race([
        old.stop().catch(() => {}),
        new Promise((r) => (deadline = setTimeout(r, 15_000).unref())),
      ]).finally(() => clearTimeout(deadline));
      if (oldPoolId) o.owners.delete(oldPoolId);
      for (let delay = 1000; !stopping; delay = Math.min(delay * 2, 10_000)) {
        await new Promise((r) => setTimeout(r, delay));
        if (stopping) break;
        try {
          runner = await o.start();
          o.logger.info({ runner: o.name }, 'job runner restarted');
          watch(runner);
          break;
        } catch (error) {
          o.logger.warn({ runner: o.name, err: error }, 'job runner could not restart yet');
        }
      }
      restarting = undefined;
    })();
  };
  const watch = (current: Runner) => {
    const ended = () => {
      if (current === runner) restart('the runner stopped on its own');
    };
    current.promise.then(ended, ended);
  };
  watch(runner);
  // Only the current pool's failures count: the old pool's workers may still report theirs while it winds down.
  o.events.on('worker:fatalError', ({ worker }) => {
    if (worker.workerPool === pool) restart('a job worker could not record the end of a job');
  });
  o.events.on('pool:fatalError', ({ workerPool }) => {
    if (workerPool === pool) restart('the worker pool could not record the end of jobs');
  });
  return {
    get runner() {
      return runner;
    },
    get running() {
      return !stopping && restarting === undefined;
    },
    async stop() {
      stopping = true;
      await restarting;
      await runner
        .stop()
        .catch((error: unknown) => o.logger.warn({ runner: o.name, err: error }, 'job runner was already stopped'));
    },
  };
}
