// Builds the real app on a fresh test database, with an owner, the Sandbox workspace and a way to mint keys —
// the same objects `herald serve` builds, driven through app.inject.
import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { loadConfig, type Config } from '../../src/config.ts';
import { buildContainer, type Container } from '../../src/container.ts';
import { createKey } from '../../src/features/keys/keys.service.ts';
import { SCOPES, type Scope } from '../../src/features/keys/scopes.ts';
import { createWorkspace, ensureOwnerAndSandbox } from '../../src/features/workspaces/workspaces.service.ts';
import { seedSandboxConnections } from '../../src/features/connections/sandbox-seed.ts';
import { addSandboxConnections } from '../../src/features/connections/connections.service.ts';
import { inProcessTransport } from '../../src/sandbox/inprocess.ts';
import { startWorker, type WorkerHandle } from '../../src/jobs/worker.ts';
import { hmac } from '../../src/lib/crypto.ts';
import type { MediaLibrary } from '../../src/features/publishing/media-library.ts';
import { buildServer } from '../../src/http/server.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { logOptions } from '../../src/serve.ts';
import type { LookupFn } from '../../src/lib/ssrf.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';

export const TEST_SECRET = 'test-secret-key-0123456789abcdefghijklmnop';

export interface LogLine {
  level: number;
  msg?: string;
  [key: string]: unknown;
}

/**
 * The secret Herald derives for its simulators from TEST_SECRET: a standalone sandbox started with it accepts the
 * seeded connections.
 */
export function sandboxSecret(): string {
  return hmac({ current: TEST_SECRET, previous: [] }, 'sandbox-simulators', 'v1');
}

export interface TestApp {
  app: FastifyInstance;
  container: Container;
  db: TestDatabase;
  config: Config;
  owner: { userId: string; workspaceId: string; brandId: string };
  /** The Sandbox brand's seeded connection per platform. */
  connections: Record<string, string>;
  worker: WorkerHandle | undefined;
  logs: LogLine[];
  key(options?: {
    scopes?: readonly Scope[];
    workspaceIds?: string[] | null;
    brandIds?: string[] | null;
    expiresAt?: Date | null;
    userId?: string;
  }): Promise<string>;
  workspace(mode?: 'live' | 'test', userId?: string): Promise<{ workspaceId: string; brandId: string }>;
  inject(options: InjectOptions & { key?: string; idem?: string | false }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

let counter = 0;

/**
 * `sandboxUrl`: where workers reach the simulators (a standalone sandbox started with `sandboxSecret()`).
 * `worker`: also run the worker (publish task, heartbeats, sweepers, waker) in this process.
 * `mediaLibrary`: replaces the media feature as the engine's source of media bytes.
 */
export async function buildTestApp(
  options: {
    env?: Record<string, string>;
    clock?: Clock;
    lookup?: LookupFn;
    sandboxUrl?: string;
    worker?: boolean;
    mediaLibrary?: MediaLibrary;
  } = {},
): Promise<TestApp> {
  const db = await createTestDatabase();
  const config = loadConfig({
    HERALD_SECRET_KEY: TEST_SECRET,
    DATABASE_URL: db.connectionString,
    HERALD_PUBLIC_URL: 'http://herald.test',
    HERALD_LOG_LEVEL: 'info',
    HERALD_WORKER_POLL_INTERVAL_MS: '200',
    HERALD_HEARTBEAT_INTERVAL_MS: '500',
    ...(options.sandboxUrl ? { HERALD_SANDBOX_URL: options.sandboxUrl } : {}),
    ...options.env,
  });
  const logs: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) logs.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  // As `herald serve` logs (its redaction and the secret keys it must never print), into `logs`.
  const logger = createLogger(config.logLevel, sink, { ...logOptions(config), format: 'json' });
  const container = buildContainer({
    config,
    logger,
    connectionString: db.connectionString,
    keyring: { current: TEST_SECRET, previous: [] },
    clock: options.clock,
    lookup: options.lookup,
    mediaLibrary: options.mediaLibrary,
  });
  const app = await buildServer(container);
  await app.ready();
  const boot = await ensureOwnerAndSandbox(container.pool, 'owner@test.local');
  const owner = { userId: boot.userId, workspaceId: boot.workspaceId, brandId: boot.brandId };
  const seeded = await seedSandboxConnections({
    pool: container.pool,
    access: container.platformAccess,
    simulators: container.simulators,
    workspaceId: boot.workspaceId,
    brandId: boot.brandId,
  });
  const connections = Object.fromEntries(seeded.map((c) => [c.platform, c.id]));
  const worker = options.worker ? await startWorker(container) : undefined;
  return {
    app,
    container,
    db,
    config,
    owner,
    logs,
    connections,
    worker,
    async key(o = {}) {
      const { key } = await createKey(container.pool, {
        userId: o.userId ?? owner.userId,
        name: `test key ${++counter}`,
        scopes: [...(o.scopes ?? SCOPES)],
        workspaceIds: o.workspaceIds === undefined ? [owner.workspaceId] : o.workspaceIds,
        brandIds: o.brandIds ?? null,
        expiresAt: o.expiresAt ?? null,
      });
      return key;
    },
    async workspace(mode = 'test', userId = owner.userId) {
      const made = await createWorkspace(container.pool, { name: `ws ${++counter}`, mode, ownerUserId: userId });
      // A test workspace gets a sandbox connection per platform, as the first-start Sandbox does.
      if (mode === 'test' && container.simulators.platforms.length > 0) {
        const { transport, close } = await inProcessTransport(
          container.simulators,
          container.platformAccess.sandboxUrl,
        );
        await addSandboxConnections(
          { db: container.pool, access: container.platformAccess, sandboxTransport: transport },
          { workspaceId: made.workspace.id, platforms: container.platforms.available() },
        ).finally(close);
      }
      return { workspaceId: made.workspace.id, brandId: made.brand.id };
    },
    inject(o) {
      const { key, idem, ...rest } = o;
      const headers: Record<string, string> = { ...(rest.headers as Record<string, string> | undefined) };
      if (key) headers.authorization ??= `Bearer ${key}`;
      const method = String(rest.method ?? 'GET').toUpperCase();
      if (
        idem !== false &&
        ['POST', 'PATCH', 'PUT', 'DELETE'].includes(method) &&
        headers['idempotency-key'] === undefined
      ) {
        headers['idempotency-key'] = idem ?? `test-${++counter}-${Date.now()}`;
      }
      return app.inject({ ...rest, headers } as InjectOptions);
    },
    async close() {
      await worker?.stop();
      await app.close();
      await container.close();
      await db.drop();
    },
  };
}
