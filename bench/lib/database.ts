// Which PostgreSQL a benchmark runs on: the machine's server (BENCH_DATABASE_URL, an admin connection string)
// or an embedded cluster started here with the same binaries and settings Herald's own embedded mode uses.
// Each benchmark gets a fresh database on that server and drops it afterwards.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openEmbeddedCluster } from '../../src/db/embedded.ts';

export type ServerKind = 'machine' | 'embedded';

export interface BenchServer {
  kind: ServerKind;
  /** What the results table says about it, e.g. "machine PG 15.8". */
  label: string;
  adminUrl: string;
  createDatabase(): Promise<BenchDatabase>;
  close(): Promise<void>;
}

export interface BenchDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export const DEFAULT_MACHINE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export async function adminQuery(adminUrl: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function openBenchServer(kind: ServerKind): Promise<BenchServer> {
  let adminUrl: string;
  let close = async () => {};
  if (kind === 'machine') {
    adminUrl = process.env.BENCH_DATABASE_URL || DEFAULT_MACHINE_URL;
  } else {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'herald-bench-pg-'));
    const cluster = await openEmbeddedCluster({
      dataDir: dir,
      log: { info: () => {}, warn: (m) => console.warn(m), error: (m) => console.error(m) },
    });
    adminUrl = cluster.adminConnectionString;
    close = async () => {
      await cluster.stop();
      await rm(dir, { recursive: true, force: true });
    };
  }
  const { rows } = await adminQuery(adminUrl, 'SHOW server_version');
  const version = String(rows[0].server_version).split(' ')[0];
  return {
    kind,
    label: kind === 'machine' ? `machine PG ${version}` : `embedded PG ${version}`,
    adminUrl,
    async createDatabase() {
      const name = `herald_bench_${randomBytes(4).toString('hex')}`;
      await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
      return {
        url: withDatabase(adminUrl, name),
        name,
        drop: async () => void (await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
      };
    },
    close,
  };
}
