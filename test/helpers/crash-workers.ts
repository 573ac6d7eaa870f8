// Worker processes for the crash tests: the real `herald serve --role worker`, with fast heartbeats (a killed one is
// presumed dead within 1.5 s) and a platform deadline far longer than any wait, so that a hanging call is still in
// flight when the test kills the worker. Every worker started is killed by `killAll` (after each test).
import { TEST_SECRET } from './app.ts';
import { spawnHerald, type HeraldProcess } from './processes.ts';

export interface CrashWorkers {
  /** Starts a worker with the common settings and `env()` (the database, the sandbox, the data directory). */
  start(): HeraldProcess;
  /** SIGKILLs one worker: no shutdown, its claims left to the liveness sweep. */
  kill(worker: HeraldProcess): Promise<void>;
  killAll(): Promise<void>;
}

export function crashWorkers(env: () => Record<string, string>): CrashWorkers {
  const workers = new Set<HeraldProcess>();
  const kill = async (worker: HeraldProcess) => {
    await worker.stop('SIGKILL');
    workers.delete(worker);
  };
  return {
    start() {
      const worker = spawnHerald(['serve', '--role', 'worker'], {
        HERALD_SECRET_KEY: TEST_SECRET,
        HERALD_PUBLIC_URL: 'http://herald.test',
        HERALD_LOG_LEVEL: 'warn',
        HERALD_WORKER_POLL_INTERVAL_MS: '200',
        HERALD_HEARTBEAT_INTERVAL_MS: '250',
        HERALD_WORKER_DEAD_AFTER_MS: '1500',
        HERALD_PLATFORM_TIMEOUT_MS: '60000',
        ...env(),
      });
      workers.add(worker);
      return worker;
    },
    kill,
    async killAll() {
      for (const worker of [...workers]) await kill(worker);
    },
  };
}
