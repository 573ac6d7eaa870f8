// superviseRunner with stand-in runners: a runner that ends by itself or whose pool or job worker reports a
// fatal error is replaced, the old pool leaves the heartbeat set, a failure of an old pool is ignored, and
// nothing restarts after stop().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Runner, WorkerEvents, WorkerPool } from 'graphile-worker';
import { createLogger } from '../lib/logger.ts';
import { superviseRunner } from './supervisor.ts';

interface Fake {
  runner: Runner;
  pool: WorkerPool;
  end(): void;
  stopped: boolean;
}

function harness() {
  const events = new EventEmitter() as WorkerEvents;
  const owners = new Set<string>();
  const fakes: Fake[] = [];
  const start = async (): Promise<Runner> => {
    let end = () => {};
    const promise = new Promise<void>((resolve) => {
      end = resolve;
    });
    const pool = { id: `pool-${fakes.length}` } as WorkerPool;
    const fake: Fake = { pool, end, stopped: false, runner: undefined as unknown as Runner };
    fake.runner = {
      promise,
      stop: async () => {
        fake.stopped = true;
        end();
      },
    } as unknown as Runner;
    fakes.push(fake);
    owners.add(pool.id);
    events.emit('pool:create', { workerPool: pool } as never);
    return fake.runner;
  };
  return { events, owners, fakes, start };
}

const logger = createLogger('silent');

async function until(condition: () => boolean, label: string): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > 15_000) throw new Error(`not reached: ${label}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('a runner that ends by itself is replaced, and its pool stops heartbeating', async () => {
  const h = harness();
  const supervised = await superviseRunner({ name: 'test', logger, ...h });
  h.fakes[0]!.end();
  await until(() => h.fakes.length === 2, 'a second runner');
  assert.equal(supervised.runner, h.fakes[1]!.runner);
  assert.deepEqual([...h.owners], ['pool-1']);
  await supervised.stop();
  assert.ok(h.fakes[1]!.stopped);
});

test('a job worker of the current pool dying restarts the runner; one of an old pool does not', async () => {
  const h = harness();
  const supervised = await superviseRunner({ name: 'test', logger, ...h });
  h.events.emit('worker:fatalError', { worker: { workerPool: h.fakes[0]!.pool } } as never);
  await until(() => h.fakes.length === 2, 'a second runner');
  assert.ok(h.fakes[0]!.stopped, 'what was left of the old runner was stopped');
  h.events.emit('worker:fatalError', { worker: { workerPool: h.fakes[0]!.pool } } as never);
  h.events.emit('pool:fatalError', { workerPool: h.fakes[0]!.pool } as never);
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(h.fakes.length, 2, 'the old pool winding down does not restart the new runner');
  await supervised.stop();
});

test('after stop() nothing is restarted', async () => {
  const h = harness();
  const supervised = await superviseRunner({ name: 'test', logger, ...h });
  await supervised.stop();
  h.fakes[0]!.end();
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(h.fakes.length, 1);
});
