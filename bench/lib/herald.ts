// Herald as the benchmarks see it: a database prepared the way the first start prepares it (migrations, owner,
// Sandbox workspace, sandbox connections, one all-scopes key), then `herald serve` in its own process, with the
// rate limits and the simulators' limits raised by configuration so that no limit is what gets measured.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { buildContainer, type Container } from '../../src/container.ts';
import { migrate } from '../../src/db/migrate.ts';
import { addSandboxConnections } from '../../src/features/connections/connections.service.ts';
import { seedSandboxConnections } from '../../src/features/connections/sandbox-seed.ts';
import { createKey } from '../../src/features/keys/keys.service.ts';
import { SCOPES } from '../../src/features/keys/scopes.ts';
import { createBrand, ensureOwnerAndSandbox } from '../../src/features/workspaces/workspaces.service.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { inProcessTransport } from '../../src/sandbox/inprocess.ts';
import { freePort, REPO, stopChild, waitForOk } from './processes.ts';

/** The settings every benchmark raises, printed with the results. */
export const RAISED_LIMITS: Record<string, string> = {
  HERALD_RATE_LIMIT_READ_PER_MIN: '100000000',
  HERALD_RATE_LIMIT_WRITE_PER_MIN: '100000000',
  HERALD_RATE_LIMIT_ANON_PER_MIN: '100000000',
  HERALD_SANDBOX_RATE_LIMIT_FACTOR: '1000000',
};

export interface Workspace {
  secret: string;
  userId: string;
  workspaceId: string;
  brandId: string;
  key: string;
  /** The default brand's sandbox connection per platform. */
  connections: Map<string, string>;
}

/** Migrates `url` and creates what the first start creates, plus an all-scopes API key. */
export async function prepareWorkspace(url: string): Promise<Workspace> {
  const secret = randomBytes(32).toString('base64url');
  const container = adminContainer(url, secret);
  try {
    await migrate(container.pool);
    const boot = await ensureOwnerAndSandbox(container.pool, 'bench@herald.local');
    const seeded = await seedSandboxConnections({
      pool: container.pool,
      access: container.platformAccess,
      simulators: container.simulators,
      workspaceId: boot.workspaceId,
      brandId: boot.brandId,
    });
    const { key } = await createKey(container.pool, {
      userId: boot.userId,
      name: 'bench',
      scopes: [...SCOPES],
      workspaceIds: [boot.workspaceId],
      expiresAt: null,
    });
    return {
      secret,
      userId: boot.userId,
      workspaceId: boot.workspaceId,
      brandId: boot.brandId,
      key,
      connections: new Map(seeded.map((c) => [c.platform, c.id])),
    };
  } finally {
    await container.close();
  }
}

/** A container in the driver for admin work (bootstrap, extra connections); it serves nothing. */
export function adminContainer(url: string, secret: string): Container {
  const config = loadConfig({
    DATABASE_URL: url,
    HERALD_SECRET_KEY: secret,
    HERALD_LOG_LEVEL: 'silent',
    HERALD_DB_POOL_SIZE: '4',
  });
  return buildContainer({
    config,
    logger: createLogger('silent'),
    connectionString: url,
    keyring: { current: secret, previous: [] },
  });
}

/**
 * `count` more sandbox accounts on `platform`, one per new brand (a brand has one default connection per
 * platform), connected through the simulators' own sign-in exactly as `herald connections add-sandbox` does.
 * Their tokens are self-contained, so the Herald process started later accepts them.
 */
export async function addSandboxAccounts(
  url: string,
  ws: Workspace,
  platform: 'mastodon' | 'bluesky',
  count: number,
): Promise<string[]> {
  const container = adminContainer(url, ws.secret);
  const { transport, close } = await inProcessTransport(container.simulators, container.platformAccess.sandboxUrl);
  try {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const brand = await createBrand(container.pool, ws.workspaceId, `bench brand ${i}`);
      const [made] = await addSandboxConnections(
        { db: container.pool, access: container.platformAccess, sandboxTransport: transport },
        { workspaceId: ws.workspaceId, brandId: brand.id, platforms: [platform] },
      );
      ids.push(made!.id);
    }
    return ids;
  } finally {
    await close();
    await container.close();
  }
}

export interface HeraldProcess {
  child: ChildProcess;
  pid: number;
  url: string;
  /** Milliseconds from spawn to the first 200 of /health/ready. */
  readyMs: number;
  stop(): Promise<void>;
}

/**
 * Starts `node bin/herald.js serve` (what `npm start` runs; `role` adds `--role`) on `databaseUrl` (unset: the
 * embedded cluster of `dataDir`), on `port` (unset: a free one), waits for /health/ready and returns the process.
 * `env` overrides any setting.
 */
export async function startHerald(o: {
  databaseUrl?: string;
  dataDir: string;
  secret?: string;
  env?: Record<string, string>;
  role?: 'all' | 'api' | 'worker';
  port?: number;
}): Promise<HeraldProcess> {
  const port = o.port ?? (await freePort());
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  delete env.DATABASE_URL;
  Object.assign(env, {
    PORT: String(port),
    HOST: '127.0.0.1',
    HERALD_PUBLIC_URL: `http://127.0.0.1:${port}`,
    HERALD_DATA_DIR: o.dataDir,
    HERALD_LOG_LEVEL: 'warn',
    ...RAISED_LIMITS,
    ...(o.databaseUrl ? { DATABASE_URL: o.databaseUrl } : {}),
    ...(o.secret ? { HERALD_SECRET_KEY: o.secret } : {}),
    ...o.env,
  });
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [path.join(REPO, 'bin/herald.js'), 'serve', ...(o.role ? ['--role', o.role] : [])],
    { cwd: REPO, env, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForOk(`${url}/health/ready`, 180_000, child);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { child, pid: child.pid!, url, readyMs: performance.now() - started, stop: () => stopChild(child, 30_000) };
}
