// Connected accounts: how long a whole connect-link flow takes (create the link, open it, the simulator's
// consent, the callback's code exchange and account lookup, the connection stored), how fast the refresh job
// renews tokens about to expire, and what K concurrent refreshers of one rotating refresh token cost (exactly one
// refresh must happen). Against the X simulator over real HTTP, so the figures are Herald's own.
//
//   node bench/connect-refresh.ts [flows=50] [connections=200] [refreshers=20]
//
// A throwaway database on BENCH_DATABASE_URL's server, or on an embedded PostgreSQL (bench/lib/database.ts).
import { loadConfig } from '../src/config.ts';
import { buildContainer } from '../src/container.ts';
import { migrate } from '../src/db/migrate.ts';
import { addSandboxConnections } from '../src/features/connections/connections.service.ts';
import { findConnection } from '../src/features/connections/connections.repo.ts';
import { refreshConnection, refreshExpiringConnections } from '../src/features/connections/lifecycle.ts';
import { createKey } from '../src/features/keys/keys.service.ts';
import { SCOPES } from '../src/features/keys/scopes.ts';
import { ensureOwnerAndSandbox } from '../src/features/workspaces/workspaces.service.ts';
import { buildServer } from '../src/http/server.ts';
import { hmac } from '../src/lib/crypto.ts';
import { createLogger } from '../src/lib/logger.ts';
import { inProcessTransport } from '../src/sandbox/inprocess.ts';
import { startSandbox } from '../src/sandbox/server.ts';
import { openBenchServer } from './lib/database.ts';

const FLOWS = Number(process.argv[2] ?? 50);
const CONNECTIONS = Number(process.argv[3] ?? 200);
const REFRESHERS = Number(process.argv[4] ?? 20);
const SECRET = 'bench-secret-0123456789abcdefghijklmnopqrstuv';

function quantiles(values: number[]): string {
  const s = [...values].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
  return `p50 ${q(0.5).toFixed(1)} ms, p90 ${q(0.9).toFixed(1)} ms, max ${(s.at(-1) ?? NaN).toFixed(1)} ms`;
}

async function main(): Promise<void> {
  const server = await openBenchServer(process.env.BENCH_DATABASE_URL ? 'machine' : 'embedded');
  const db = await server.createDatabase();
  const sandbox = await startSandbox({
    secret: hmac({ current: SECRET, previous: [] }, 'sandbox-simulators', 'v1'),
    rateLimitFactor: 1000,
    platforms: ['x'],
  });
  const config = loadConfig({
    DATABASE_URL: db.url,
    HERALD_SECRET_KEY: SECRET,
    HERALD_SANDBOX_URL: sandbox.url,
    HERALD_PUBLIC_URL: 'http://herald.bench',
    HERALD_LOG_LEVEL: 'silent',
    HERALD_RATE_LIMIT_WRITE_PER_MIN: '100000',
  });
  const container = buildContainer({
    config,
    logger: createLogger('silent'),
    connectionString: db.url,
    keyring: { current: SECRET, previous: [] },
  });
  const app = await buildServer(container);
  try {
    await migrate(container.pool);
    const boot = await ensureOwnerAndSandbox(container.pool, 'bench@herald.local');
    const { key } = await createKey(container.pool, {
      userId: boot.userId,
      name: 'bench',
      scopes: [...SCOPES],
      workspaceIds: [boot.workspaceId],
      expiresAt: null,
    });
    const deps = { pool: container.pool, access: container.platformAccess, logger: container.logger };

    // 1. Whole connect flows, one after another.
    const flow: number[] = [];
    for (let i = 0; i < FLOWS; i++) {
      const started = performance.now();
      const link = (
        await app.inject({
          method: 'POST',
          url: '/v1/connections/connect-links',
          headers: { authorization: `Bearer ${key}`, 'idempotency-key': `bench-${i}` },
          payload: { platform: 'x', redirect_url: 'https://client.example/back' },
        })
      ).json().data;
      const open = await app.inject({ url: new URL(link.url).pathname });
      const cookie = String(open.headers['set-cookie']).split(';')[0]!;
      const authorize = new URL(String(open.headers.location));
      authorize.searchParams.set('sandbox_username', `bench_${i}`);
      const consent = await fetch(authorize, { redirect: 'manual' });
      const callback = new URL(consent.headers.get('location')!);
      const back = await app.inject({ url: callback.pathname + callback.search, headers: { cookie } });
      if (!String(back.headers.location).includes('connection_id='))
        throw new Error(`flow ${i}: ${back.statusCode} ${back.headers.location} ${back.body.slice(0, 200)}`);
      flow.push(performance.now() - started);
    }
    console.log(`Connect flow (link → consent → code exchange → account → stored), ${FLOWS} flows: ${quantiles(flow)}`);

    // 2. The refresh job over connections whose tokens expire within its window.
    const { transport, close } = await inProcessTransport(container.simulators, container.platformAccess.sandboxUrl);
    const made = await addSandboxConnections(
      { db: container.pool, access: container.platformAccess, sandboxTransport: transport },
      { workspaceId: boot.workspaceId, platforms: Array.from({ length: CONNECTIONS }, () => 'x' as const) },
    ).finally(close);
    await container.pool.query(
      `UPDATE connections SET token_expires_at = now() + interval '1 minute' WHERE id = ANY($1)`,
      [made.map((c) => c.id)],
    );
    const jobStarted = performance.now();
    const tally = await refreshExpiringConnections(deps, new Date());
    const jobMs = performance.now() - jobStarted;
    console.log(
      `Refresh job: ${tally.renewed} renewed, ${tally.expired} expired, ${tally.failed} failed in ${jobMs.toFixed(0)} ms (${(tally.renewed / (jobMs / 1000)).toFixed(0)} connections/s, 4 at a time, batches of 100)`,
    );

    // 3. K concurrent refreshers of one connection: one refresh, the others wait on the row lock and reuse it.
    const one = (await findConnection(container.pool, boot.workspaceId, made[0]!.id))!;
    const raceStarted = performance.now();
    const sessions = await Promise.all(Array.from({ length: REFRESHERS }, () => refreshConnection(deps, one)));
    const raceMs = performance.now() - raceStarted;
    const distinct = new Set(sessions.map((s) => s.credentials.accessToken)).size;
    console.log(
      `${REFRESHERS} concurrent refreshers of one rotating token: ${distinct} distinct token(s) (must be 1), all done in ${raceMs.toFixed(1)} ms`,
    );
    if (distinct !== 1) process.exitCode = 1;
  } finally {
    await app.close();
    await container.close();
    await sandbox.close();
    await db.drop();
    await server.close();
  }
}

await main();
