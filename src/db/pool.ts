// PostgreSQL access: the pool, the Queryable type every repository takes, and transactions.
import pg from 'pg';

/** A pool or a client inside a transaction: repositories accept either, so callers choose the transaction. */
export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;
export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

// timestamptz → JS Date (pg's default), int8 → number when it fits (counts), numeric stays string.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => {
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : value;
});

export function createPool(connectionString: string, max: number, applicationName = 'herald'): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    application_name: applicationName,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // A checked-out client whose server goes away emits 'error' too; the query in flight fails on its own.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** Runs `fn` in a transaction on a dedicated client; commits on success, rolls back on any error. */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch {
      broken = true; // the connection itself failed: do not return it to the pool
    }
    throw error;
  } finally {
    client.release(broken);
  }
}

/** PostgreSQL errors that mean "the database is not there right now", as opposed to a bad query. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: string }).code;
  if (
    code &&
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'EPIPE',
      'ENOTFOUND',
      'EAI_AGAIN',
      '57P01',
      '57P02',
      '57P03',
      '53300',
      '08000',
      '08001',
      '08003',
      '08004',
      '08006',
    ].includes(code)
  )
    return true;
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|the database system is (starting up|shutting down)/i.test(
    error.message,
  );
}
