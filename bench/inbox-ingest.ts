// Benchmark: ingesting comments across 100 connections by polling the simulators (docs/inbox.md "Ingestion") —
// 100,000 mentions (1,000 per connection; `--quick`: 10,000) injected on a standalone Mastodon simulator, then
// read by one ingestion pass of Herald (`ingestDue`, up to 100 sources, 8 connections at a time, every page one
// transaction with its cursor and afterIngest) against a floor that fetches the same pages and inserts each page
// with one batch (bench/floor/inbox-ingest.ts). Target: Herald within 2 × the floor's time.
import pg from 'pg';
import { ingestDue } from '../src/features/inbox/ingest.ts';
import { openCredentials } from '../src/features/connections/platform-access.ts';
import { hmac } from '../src/lib/crypto.ts';
import { pgStore } from '../src/sandbox/framework/store-pg.ts';
import { startSandbox } from '../src/sandbox/server.ts';
import { floorIngest, type FloorConnection } from './floor/inbox-ingest.ts';
import { addSandboxAccounts, prepareWorkspace } from './lib/herald.ts';
import { loadConfig } from '../src/config.ts';
import { buildContainer } from '../src/container.ts';
import { createLogger } from '../src/lib/logger.ts';
import { fmt, type BenchContext, type Row } from './lib/report.ts';

const CONNECTIONS = 100;
const MAX_RATIO = 2;

export async function inboxIngestBenchmark(ctx: BenchContext): Promise<Row[]> {
  const perConnection = ctx.quick ? 100 : 1000;
  const db = await ctx.server.createDatabase();
  const pool = new pg.Pool({ connectionString: db.url, max: 10 });
  try {
    const ws = await prepareWorkspace(db.url);
    const sandbox = await startSandbox({
      secret: hmac({ current: ws.secret, previous: [] }, 'sandbox-simulators', 'v1'),
      platforms: ['mastodon'],
      rateLimitFactor: 1_000_000,
      store: (name) => pgStore(pool, `bench-${name}`),
    });
    try {
      const ids = await addSandboxAccounts(db.url, ws, 'mastodon', CONNECTIONS);
      const { rows } = await pool.query<{ id: string; handle: string; brand_id: string; credentials: Buffer }>(
        `SELECT id, handle, brand_id, credentials FROM connections WHERE id = ANY($1)`,
        [ids],
      );
      const started = performance.now();
      for (const r of rows)
        await sandbox
          .simulator('mastodon')
          .inject({ account: r.handle.replace(/^@/, '').replace(/@.*$/, ''), kind: 'mention', count: perConnection });
      ctx.log(
        `inbox ingest: injected ${rows.length * perConnection} mentions in ${fmt.s(performance.now() - started)}`,
      );
      // Only the bench's connections are polled: the seeded ones are disconnected.
      await pool.query(`UPDATE connections SET status = 'disconnected' WHERE workspace_id = $1 AND NOT id = ANY($2)`, [
        ws.workspaceId,
        ids,
      ]);

      const keyring = { current: ws.secret, previous: [] };
      const floorConnections: FloorConnection[] = rows.map((r) => ({
        id: r.id,
        workspaceId: ws.workspaceId,
        brandId: r.brand_id,
        baseUrl: sandbox.baseUrl('mastodon'),
        token: openCredentials(keyring, r.credentials).accessToken,
      }));
      const t0 = performance.now();
      const floorRows = await floorIngest(pool, floorConnections, 8);
      const floorMs = performance.now() - t0;
      ctx.log(`inbox ingest floor: ${floorRows} rows in ${fmt.s(floorMs)}`);
      await pool.query('TRUNCATE inbox_items CASCADE');

      const config = loadConfig({
        DATABASE_URL: db.url,
        HERALD_SECRET_KEY: ws.secret,
        HERALD_LOG_LEVEL: 'silent',
        HERALD_DB_POOL_SIZE: '10',
        HERALD_SANDBOX_URL: sandbox.url,
      });
      const container = buildContainer({
        config,
        logger: createLogger('silent'),
        connectionString: db.url,
        keyring,
      });
      let heraldMs: number;
      let created: number;
      try {
        const t1 = performance.now();
        const tally = await ingestDue({
          pool: container.pool,
          access: container.platformAccess,
          logger: container.logger,
          clock: container.clock,
          pollSeconds: 120,
          batchSize: CONNECTIONS * 4,
          maxPages: 100_000,
        });
        heraldMs = performance.now() - t1;
        created = tally.created;
      } finally {
        await container.close();
      }
      ctx.log(`inbox ingest Herald: ${created} rows in ${fmt.s(heraldMs)}`);
      const expected = rows.length * perConnection;
      if (created !== expected || floorRows !== expected) {
        const { rows: errors } = await pool.query(
          `SELECT last_error FROM inbox_sources WHERE last_error IS NOT NULL LIMIT 1`,
        );
        throw new Error(
          `inbox ingest: Herald ${created}, floor ${floorRows}, expected ${expected} ${JSON.stringify(errors[0] ?? {})}`,
        );
      }
      return [
        {
          benchmark: `Inbox ingestion: ${expected.toLocaleString('en')} mentions across ${rows.length} connections (Mastodon simulator)`,
          herald: `${fmt.s(heraldMs)} (${Math.round(expected / (heraldMs / 1000))} items/s)`,
          floor: `${fmt.s(floorMs)} (${Math.round(expected / (floorMs / 1000))} items/s)`,
          // Floor time ÷ Herald time: higher is better; 0.5 is the target's edge.
          ratio: floorMs / heraldMs,
          target: `≤ ${MAX_RATIO} × floor`,
          pass: heraldMs <= MAX_RATIO * floorMs,
          database: ctx.server.label,
        },
      ];
    } finally {
      await sandbox.close();
    }
  } finally {
    await pool.end();
    await db.drop();
  }
}
