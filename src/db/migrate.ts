// Forward-only migrations: Herald's numbered SQL files (src/db/migrations/NNNN_name.sql) and graphile-worker's
// own schema. Everything runs under one PostgreSQL advisory lock, so concurrent first starts are safe.
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { Logger as WorkerLogger, runMigrations as runWorkerMigrations } from 'graphile-worker';
import type { Pool } from './pool.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
// Arbitrary constant shared by every Herald process: "the migration lock".
const MIGRATION_LOCK = 7_245_812_001;

/**
 * graphile-worker schemas, one per job runner: the main runner's, and the webhook deliveries' own (a separate
 * jobs table, so a burst of deliveries never slows the main runner's job lookups; docs/decisions.md).
 */
export const JOB_SCHEMAS = { main: 'graphile_worker', deliveries: 'graphile_worker_deliveries' } as const;

export interface Migration {
  id: number;
  name: string;
  file: string;
}

export async function listMigrations(): Promise<Migration[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
  return files.map((file) => ({
    id: Number(file.slice(0, 4)),
    name: file.slice(5, -4),
    file: path.join(MIGRATIONS_DIR, file),
  }));
}

async function latestWorkerMigration(): Promise<number> {
  const sqlDir = fileURLToPath(new URL('../sql/', import.meta.resolve('graphile-worker')));
  const ids = (await readdir(sqlDir)).filter((f) => /^\d+\.sql$/.test(f)).map((f) => Number(f.slice(0, -4)));
  return Math.max(...ids);
}

/** Migrations not yet applied, Herald's and graphile-worker's, as names (empty when current). */
export async function pendingMigrations(pool: Pool): Promise<string[]> {
  const pending: string[] = [];
  const { rows } = await pool.query<{ exists: boolean }>(
    `SELECT to_regclass('public.herald_migrations') IS NOT NULL AS exists`,
  );
  const applied = new Set<number>();
  if (rows[0]?.exists) {
    for (const row of (await pool.query<{ id: number }>('SELECT id FROM herald_migrations')).rows) applied.add(row.id);
  }
  for (const m of await listMigrations())
    if (!applied.has(m.id)) pending.push(`${String(m.id).padStart(4, '0')}_${m.name}`);
  const latest = await latestWorkerMigration();
  for (const schema of Object.values(JOB_SCHEMAS)) {
    const worker = await pool.query<{ exists: boolean }>(
      `SELECT to_regclass('${schema}.migrations') IS NOT NULL AS exists`,
    );
    let current = 0;
    if (worker.rows[0]?.exists) {
      current =
        (await pool.query<{ max: number | null }>(`SELECT max(id) AS max FROM ${schema}.migrations`)).rows[0]?.max ?? 0;
    }
    if (current < latest) pending.push(`graphile-worker (${schema}) ${current} → ${latest}`);
  }
  return pending;
}

/**
 * An index of the publishing queue's available jobs by due time alone. graphile-worker fetches due jobs ordered by
 * (priority, run_at) from its (priority, run_at) index, which walks every future job when fewer are due than it
 * asks for: a third of a second per poll with a million posts scheduled ahead. With this index PostgreSQL reads
 * only the due entries and sorts them (docs/decisions.md "Due jobs are found by due time"). It lives on
 * graphile-worker's own table, so it is made after that schema's migrations, not in a numbered migration.
 */
const DUE_JOBS_INDEX = `CREATE INDEX IF NOT EXISTS herald_jobs_due_idx ON ${JOB_SCHEMAS.main}._private_jobs (run_at) WHERE is_available`;

/** Applies every pending migration; returns the names applied. Safe to call from several processes at once. */
export async function migrate(pool: Pool): Promise<string[]> {
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS herald_migrations (
      id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set(
      (await client.query<{ id: number }>('SELECT id FROM herald_migrations')).rows.map((r) => r.id),
    );
    for (const m of await listMigrations()) {
      if (done.has(m.id)) continue;
      const sql = await readFile(m.file, 'utf8');
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query('INSERT INTO herald_migrations (id, name) VALUES ($1, $2)', [m.id, m.name]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`Migration ${m.id}_${m.name} failed: ${(error as Error).message}`, { cause: error });
      }
      applied.push(`${String(m.id).padStart(4, '0')}_${m.name}`);
    }
    // graphile-worker takes its own lock too; running it under ours keeps "migrated" a single step.
    for (const schema of Object.values(JOB_SCHEMAS))
      await runWorkerMigrations({ pgPool: pool, schema, logger: silentWorkerLogger() });
    await client.query(DUE_JOBS_INDEX);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
  return applied;
}

function silentWorkerLogger(): WorkerLogger {
  return new WorkerLogger(() => () => {});
}
