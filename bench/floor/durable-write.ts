// The durable-write floor for creating a post: a bare node:http server that answers POST /v1/posts with one
// prepared `INSERT … RETURNING` of the request's JSON (one row, one committed transaction, nothing else) through
// `pg` with a pool of the same size, behind the same bearer check. Nothing can create a post for less: whatever
// Herald takes beyond this is its own transaction, checks and framework.
//
//   FLOOR_DATABASE_URL=… FLOOR_KEY=… FLOOR_POOL=20 node bench/floor/durable-write.ts
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { serveFloor } from './serve.ts';

const env = process.env as Record<string, string>;
const pool = new pg.Pool({ connectionString: env.FLOOR_DATABASE_URL, max: Number(env.FLOOR_POOL ?? 20) });
const bearer = `Bearer ${env.FLOOR_KEY}`;

// A table of its own, so the floor's rows never meet Herald's: unlogged would not be durable, so it is logged.
await pool.query(
  `CREATE TABLE IF NOT EXISTS floor_durable_writes (
     id text PRIMARY KEY, idempotency_key text NOT NULL, body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())`,
);

const INSERT: pg.QueryConfig = {
  name: 'floor-durable-write',
  text: 'INSERT INTO floor_durable_writes (id, idempotency_key, body) VALUES ($1, $2, $3) RETURNING id, created_at',
};

async function write(raw: string, key: string): Promise<{ status: number; body: string }> {
  const id = `post_${randomBytes(13).toString('hex').slice(0, 26)}`;
  const { rows } = await pool.query<{ id: string; created_at: Date }>({ ...INSERT, values: [id, key, raw] });
  const row = rows[0]!;
  return {
    status: 201,
    body: JSON.stringify({
      success: true,
      data: { post_id: row.id, post: { id: row.id, ...JSON.parse(raw), created_at: row.created_at } },
    }),
  };
}

serveFloor(
  bearer,
  ({ method, url, body, headers }) =>
    method === 'POST' && url.pathname === '/v1/posts' ? write(body, String(headers['idempotency-key'])) : undefined,
  () => void pool.end(),
);
