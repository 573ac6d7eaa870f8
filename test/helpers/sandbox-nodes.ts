// Sandbox "nodes" on one fresh test database, for the simulators' restart tests: each node is a standalone sandbox
// with the same secret and its store in PostgreSQL, so stopping one and starting another is a restart, and two
// running at once are two API nodes. `close` stops every node still running, ends the pool and drops the database.
import pg from 'pg';
import type { PlatformName } from '../../src/platforms/limits.ts';
import type { SimulatorOptions } from '../../src/sandbox/framework/simulator.ts';
import { pgStore } from '../../src/sandbox/framework/store-pg.ts';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/server.ts';
import { createTestDatabase } from './db.ts';

export interface SandboxNodes {
  /** The pool on the test database the nodes' stores use. */
  pool: pg.Pool;
  /** Starts a node; `options` (e.g. `now`, `settings`) go over the platforms, secret and store. */
  start(options?: Partial<SimulatorOptions>): Promise<RunningSandbox>;
  /** Stops one node. */
  stop(node: RunningSandbox): Promise<void>;
  close(): Promise<void>;
}

export async function sandboxNodes(platforms: PlatformName[], secret: string): Promise<SandboxNodes> {
  const db = await createTestDatabase();
  const pool = new pg.Pool({ connectionString: db.connectionString, max: 6 });
  // An idle connection the server closes is not the test's failure (Herald's own pool ignores it too, db/pool.ts).
  pool.on('error', () => {});
  const running = new Set<RunningSandbox>();
  return {
    pool,
    async start(options = {}) {
      const node = await startSandbox({ platforms, secret, store: (name) => pgStore(pool, name), ...options });
      running.add(node);
      return node;
    },
    async stop(node) {
      running.delete(node);
      await node.close();
    },
    async close() {
      await Promise.all([...running].map((node) => node.close()));
      running.clear();
      await pool.end();
      await db.drop();
    },
  };
}
