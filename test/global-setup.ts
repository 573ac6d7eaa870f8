// Runs once per `npm test`: provides one PostgreSQL for the whole run (the machine's when DATABASE_URL is set,
// else one embedded cluster) and a template database migrated once, which every test file clones.
import path from 'node:path';
import pg from 'pg';
import { openEmbeddedCluster, type EmbeddedCluster } from '../src/db/embedded.ts';
import { listMigrations, migrate } from '../src/db/migrate.ts';
import { createPool } from '../src/db/pool.ts';
import { sha256 } from '../src/lib/crypto.ts';

let cluster: EmbeddedCluster | undefined;

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

export async function globalSetup(): Promise<void> {
  let adminUrl: string;
  if (process.env.DATABASE_URL) {
    adminUrl = withDatabase(process.env.DATABASE_URL, 'postgres');
  } else {
    const started = Date.now();
    cluster = await openEmbeddedCluster({
      dataDir: path.resolve(import.meta.dirname, '.tmp', 'embedded'),
      log: { info: () => {}, warn: (m) => console.warn(m), error: (m) => console.error(m) },
      // Test data is disposable: trade durability for speed.
      postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
    });
    adminUrl = cluster.adminConnectionString;
    console.log(`# embedded PostgreSQL for the test run ready in ${Date.now() - started} ms`);
  }
  // The template's name changes with the migrations, so a stale template from an older checkout is never used.
  const migrations = await listMigrations();
  const template = `herald_tpl_${sha256(migrations.map((m) => m.file).join())
    .toString('hex')
    .slice(0, 10)}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${template}`);
  } finally {
    await admin.end();
  }
  const pool = createPool(withDatabase(adminUrl, template), 2, 'herald-test-template');
  await migrate(pool);
  await pool.end();
  process.env.HERALD_TEST_ADMIN_URL = adminUrl;
  process.env.HERALD_TEST_TEMPLATE = template;
}

export async function globalTeardown(): Promise<void> {
  const adminUrl = process.env.HERALD_TEST_ADMIN_URL;
  const template = process.env.HERALD_TEST_TEMPLATE;
  if (adminUrl && template) {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    // Databases the test files failed to drop (a crashed file) go too.
    const { rows } = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE 'herald_t_%_${process.pid}' OR datname = $1`,
      [template],
    );
    for (const { datname } of rows)
      await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`).catch(() => {});
    await admin.end();
  }
  await cluster?.stop();
}
