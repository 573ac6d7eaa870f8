// The sandbox store in PostgreSQL (the `sandbox` schema, migration 0013): what a simulator mounted in Herald keeps,
// shared by every API node and kept across restarts. It takes Herald's pool by shape only — the sandbox imports
// nothing of Herald's database layer — and touches no table outside its schema.
import { decode, encode, type ListQuery, type SandboxStore } from './store.ts';

interface SqlResult<R> {
  rows: R[];
  rowCount: number | null;
}

/** What the store needs of a connection or a pool: pg's `query`. */
export interface SqlClient {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<SqlResult<R>>;
}

/** What it needs of a pool: queries, and a dedicated client for an atomic update. */
export interface SqlPool extends SqlClient {
  connect(): Promise<SqlClient & { release(broken?: boolean): void }>;
}

/**
 * Every write commits without waiting for its WAL to reach the disk (`synchronous_commit` off for that statement's
 * own transaction, set in the statement: one round trip). A burst of simulated posts otherwise waited on one disk
 * flush per post (10,000 posts: 32 s instead of 6 s, the sessions queued on WALWrite). Nothing Herald recorded is
 * at risk: WAL is flushed in order, so Herald's own commit, which waits, makes every sandbox write before it durable.
 * A crash of PostgreSQL itself can lose the last fraction of a second of simulated writes that Herald never saw.
 */
const ASYNC = `async AS (SELECT set_config('synchronous_commit', 'off', true))`;

/** The store of one simulator (`simulator`: its platform name) in the shared `sandbox` schema. */
export function pgStore(pool: SqlPool, simulator: string): SandboxStore {
  const q = <R>(text: string, values: unknown[]) => pool.query<R>(text, [simulator, ...values]);
  return {
    async get<T>(kind: string, id: string) {
      const { rows } = await q<{ data: string }>(
        'SELECT data::text AS data FROM sandbox.documents WHERE simulator = $1 AND kind = $2 AND id = $3',
        [kind, id],
      );
      return rows[0] ? decode<T>(rows[0].data) : undefined;
    },
    async put(kind, id, doc, owner) {
      await q(
        `WITH ${ASYNC}
         INSERT INTO sandbox.documents (simulator, kind, id, owner, data) SELECT $1, $2, $3, $4, $5::jsonb FROM async
         ON CONFLICT (simulator, kind, id) DO UPDATE SET owner = EXCLUDED.owner, data = EXCLUDED.data`,
        [kind, id, owner ?? null, encode(doc)],
      );
    },
    async insert(kind, id, doc, owner) {
      const { rowCount } = await q(
        `WITH ${ASYNC}
         INSERT INTO sandbox.documents (simulator, kind, id, owner, data) SELECT $1, $2, $3, $4, $5::jsonb FROM async
         ON CONFLICT (simulator, kind, id) DO NOTHING`,
        [kind, id, owner ?? null, encode(doc)],
      );
      return rowCount === 1;
    },
    async update<T>(kind: string, id: string, change: (doc: T) => T | undefined) {
      const client = await pool.connect();
      let broken = false;
      try {
        await client.query('BEGIN');
        await client.query(`SET LOCAL synchronous_commit = off`);
        const { rows } = await client.query<{ data: string }>(
          'SELECT data::text AS data FROM sandbox.documents WHERE simulator = $1 AND kind = $2 AND id = $3 FOR UPDATE',
          [simulator, kind, id],
        );
        if (!rows[0]) {
          await client.query('COMMIT');
          return undefined;
        }
        const next = change(decode<T>(rows[0].data));
        if (next !== undefined)
          await client.query(
            'UPDATE sandbox.documents SET data = $4::jsonb WHERE simulator = $1 AND kind = $2 AND id = $3',
            [simulator, kind, id, encode(next)],
          );
        await client.query('COMMIT');
        return next ?? decode<T>(rows[0].data);
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw error;
      } finally {
        client.release(broken);
      }
    },
    async list<T>(kind: string, query: ListQuery = {}) {
      const values: unknown[] = [kind];
      const where = ['simulator = $1', 'kind = $2'];
      if (query.owner !== undefined) {
        values.push(query.owner);
        where.push(`owner = $${values.length + 1}`);
      }
      if (query.match) {
        values.push(encode(query.match));
        where.push(`data @> $${values.length + 1}::jsonb`);
      }
      // A missing cursor document yields NULL, and `seq < NULL` matches nothing, as in memory.
      for (const [id, op] of [
        [query.beforeId, '<'],
        [query.afterId, '>'],
      ] as const) {
        if (id === undefined) continue;
        values.push(id);
        where.push(
          `seq ${op} (SELECT c.seq FROM sandbox.documents c WHERE c.simulator = $1 AND c.kind = $2 AND c.id = $${values.length + 1})`,
        );
      }
      let limit = '';
      if (query.limit !== undefined) {
        values.push(query.limit);
        limit = ` LIMIT $${values.length + 1}`;
      }
      const { rows } = await q<{ data: string }>(
        `SELECT data::text AS data FROM sandbox.documents WHERE ${where.join(' AND ')}
          ORDER BY seq ${query.ascending ? 'ASC' : 'DESC'}${limit}`,
        values,
      );
      return rows.map((r) => decode<T>(r.data));
    },
    async delete(kind, id) {
      const { rowCount } = await q(
        `WITH ${ASYNC} DELETE FROM sandbox.documents USING async WHERE simulator = $1 AND kind = $2 AND id = $3`,
        [kind, id],
      );
      return rowCount === 1;
    },
    async next(counter, first = 1n) {
      const { rows } = await q<{ value: string }>(
        `WITH ${ASYNC}
         INSERT INTO sandbox.counters (simulator, name, value) SELECT $1, $2, $3::numeric FROM async
         ON CONFLICT (simulator, name) DO UPDATE SET value = sandbox.counters.value + 1
         RETURNING value::text AS value`,
        [counter, first.toString()],
      );
      return BigInt(rows[0]!.value);
    },
    async putBytes(id, bytes) {
      await q(
        `WITH ${ASYNC}
         INSERT INTO sandbox.blobs (simulator, id, bytes) SELECT $1, $2, $3 FROM async
         ON CONFLICT (simulator, id) DO UPDATE SET bytes = EXCLUDED.bytes`,
        [id, bytes],
      );
    },
    async getBytes(id) {
      const { rows } = await q<{ bytes: Buffer }>('SELECT bytes FROM sandbox.blobs WHERE simulator = $1 AND id = $2', [
        id,
      ]);
      return rows[0]?.bytes;
    },
    async clear() {
      // Counters stay: an id handed out before a reset must never come back.
      await q('DELETE FROM sandbox.documents WHERE simulator = $1', []);
      await q('DELETE FROM sandbox.blobs WHERE simulator = $1', []);
    },
  };
}
