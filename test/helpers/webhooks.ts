// Helpers for webhook tests: a DNS table for the SSRF guard, a clock the test moves, and "time travel" for the
// delivery queue (jobs the moved clock has made due are made due for the database too).
import type { LookupFn } from '../../src/lib/ssrf.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { JOB_SCHEMAS } from '../../src/db/migrate.ts';
import type { Queryable } from '../../src/db/pool.ts';

/** Names resolved from a table the test can change; anything else does not resolve. */
export function fakeDns(table: Record<string, string[]>): LookupFn & { table: Record<string, string[]> } {
  const lookup = (async (host: string) => {
    const found = table[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  }) as LookupFn & { table: Record<string, string[]> };
  lookup.table = table;
  return lookup;
}

export interface TestClock extends Clock {
  advance(ms: number): Date;
  set(at: Date): void;
}

/** Starts at the real time; moves only when told to. */
export function testClock(start = new Date()): TestClock {
  let now = start.getTime();
  return {
    now: () => new Date(now),
    advance(ms) {
      now += ms;
      return new Date(now);
    },
    set(at) {
      now = at.getTime();
    },
  };
}

/** Delivery jobs whose run_at the test clock has passed become due now, and the runner is told. */
export async function releaseDueDeliveries(db: Queryable, clock: Clock): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE ${JOB_SCHEMAS.deliveries}._private_jobs SET run_at = now() WHERE run_at > now() AND run_at <= $1 AND locked_at IS NULL`,
    [clock.now()],
  );
  await db.query(`SELECT pg_notify('jobs:insert', '{"count":1}')`);
  return rowCount ?? 0;
}

export async function pendingDeliveryJobs(
  db: Queryable,
): Promise<Array<{ key: string; run_at: Date; payload: Record<string, unknown> }>> {
  const { rows } = await db.query(
    `SELECT key, run_at, payload FROM ${JOB_SCHEMAS.deliveries}._private_jobs ORDER BY run_at`,
  );
  return rows;
}
