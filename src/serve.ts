// `herald serve`: starts the API, the worker or both on one database, and stops them cleanly on SIGINT/SIGTERM
// (HTTP first, so no new work arrives, within a deadline; then the worker; then the pool; then the embedded
// cluster if we own it).
import type { FastifyInstance } from 'fastify';
import type { Config, Role } from './config.ts';
import { buildContainer, type Container } from './container.ts';
import { openDatabase, type DatabaseHandle } from './db/connect.ts';
import { migrate, pendingMigrations } from './db/migrate.ts';
import { seedSandboxConnections } from './features/connections/sandbox-seed.ts';
import { createKey } from './features/keys/keys.service.ts';
import { SCOPES } from './features/keys/scopes.ts';
import { ensureOwnerAndSandbox } from './features/workspaces/workspaces.service.ts';
import { ensurePassword } from './features/users/users.service.ts';
import { closeWithin } from './http/limits.ts';
import { PLATFORM_LIMITS } from './platforms/catalogue.ts';
import { buildServer } from './http/server.ts';
import { startDeliveryRunner, type DeliveryRunner } from './jobs/deliveries.ts';
import { startWorker, type WorkerHandle } from './jobs/worker.ts';
import { createLogger, type Logger } from './lib/logger.ts';
import { resolveKeyring } from './lib/secrets.ts';

export interface Running {
  container: Container;
  app?: FastifyInstance;
  worker?: WorkerHandle;
  deliveries?: DeliveryRunner;
  url?: string;
  stop(): Promise<void>;
}

/**
 * Runs migrations and the first-start bootstrap; prints the one-time key when the Sandbox was just created, and
 * the owner's generated password whenever the owner has none yet (first start, or an upgrade).
 */
async function prepare(container: Container, print: (text: string) => void): Promise<void> {
  const applied = await migrate(container.pool);
  if (applied.length > 0) container.logger.info({ applied }, 'migrations applied');
  const boot = await ensureOwnerAndSandbox(container.pool, container.config.ownerEmail);
  const seeded = await seedSandboxConnections({
    pool: container.pool,
    access: container.platformAccess,
    simulators: container.simulators,
    workspaceId: boot.workspaceId,
    brandId: boot.brandId,
  });
  if (seeded.length > 0)
    container.logger.info(
      { connections: seeded.map((c) => `${c.platform}:${c.handle}`) },
      'sandbox connections created',
    );
  const password = await ensurePassword(container.pool, boot.userId);
  const passwordLine = password
    ? [
        `  Password      ${password}   (sign-in for connecting assistants; change it with \`herald users set-password ${boot.email}\`)`,
      ]
    : [];
  if (!boot.created) {
    if (password)
      print(
        ['', `The owner account ${boot.email} had no password. This is shown once:`, ...passwordLine, ''].join('\n'),
      );
    return;
  }
  // The Try command must work when pasted, so it names only the platforms a text post can go to; a platform that
  // needs an image (Instagram) is named on the line after it instead (docs/decisions.md, "The first-start Try").
  const textReady = seeded.filter((c) => !PLATFORM_LIMITS[c.platform].media.required).map((c) => c.platform);
  const needMedia = seeded.filter((c) => PLATFORM_LIMITS[c.platform].media.required).map((c) => c.platform);
  const { key } = await createKey(container.pool, {
    userId: boot.userId,
    name: 'First-start key',
    scopes: [...SCOPES],
    workspaceIds: [boot.workspaceId],
    expiresAt: null,
  });
  print(
    [
      '',
      'Herald is set up. This is shown once:',
      `  URL           ${container.config.publicUrl}`,
      `  Owner         ${boot.email}`,
      ...passwordLine,
      `  Workspace     ${boot.workspaceId}  (Sandbox, test mode)`,
      `  Brand         ${boot.brandId}`,
      `  Connections   ${seeded.map((c) => `${c.platform} @${c.handle}`).join(', ') || '(none: HERALD_SANDBOX=off)'}  (simulated)`,
      `  API key       ${key}`,
      '',
      ...(textReady.length > 0
        ? [
            `Try: curl -H "Authorization: Bearer ${key}" -H "Idempotency-Key: first-post" -H "Content-Type: application/json" \\`,
            `       -d '{"content":"Hello from Herald","platforms":[${textReady.map((p) => `"${p}"`).join(',')}],"publish_now":true}' ${container.config.publicUrl}/v1/posts`,
          ]
        : []),
      ...(needMedia.length > 0
        ? [
            `     (Not ${needMedia.join(' or ')}: a post there needs an image or video. "Attach an image" in the README shows how.)`,
          ]
        : []),
      `MCP: ${container.config.publicUrl}/mcp  (assistants sign in with the owner email and password above)`,
      '',
    ].join('\n'),
  );
}

export async function startHerald(
  config: Config,
  role: Role,
  options: { logger?: Logger; print?: (text: string) => void } = {},
): Promise<Running> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const print = options.print ?? ((text: string) => process.stdout.write(`${text}\n`));
  let database: DatabaseHandle | undefined;
  let container: Container | undefined;
  let app: FastifyInstance | undefined;
  let worker: WorkerHandle | undefined;
  let deliveries: DeliveryRunner | undefined;
  const stop = async () => {
    // Requests in flight get HERALD_SHUTDOWN_TIMEOUT_MS; a client that holds its socket longer (a slow body, a
    // stalled download) is cut off then, or it would keep the whole process (and its worker) alive.
    if (app)
      await closeWithin(app, config.http.shutdownTimeoutMs, () =>
        logger.warn({ grace_ms: config.http.shutdownTimeoutMs }, 'closing HTTP connections still open'),
      ).catch((e: unknown) => logger.error({ err: e }, 'closing HTTP server'));
    await worker?.stop().catch((e: unknown) => logger.error({ err: e }, 'stopping worker'));
    await deliveries?.stop().catch((e: unknown) => logger.error({ err: e }, 'stopping webhook delivery runner'));
    await container?.close().catch((e: unknown) => logger.error({ err: e }, 'closing database pool'));
    await database?.close().catch((e: unknown) => logger.error({ err: e }, 'stopping embedded PostgreSQL'));
  };
  try {
    database = await openDatabase(config, logger);
    const keyring = await resolveKeyring(config, logger);
    container = buildContainer({ config, logger, connectionString: database.connectionString, keyring });
    if (role === 'all') {
      await prepare(container, print);
    } else {
      const pending = await pendingMigrations(container.pool);
      if (pending.length > 0) {
        throw new Error(
          `Migrations are pending (${pending.join(', ')}). Run \`herald migrate\` (or \`herald serve\` with --role all) first.`,
        );
      }
    }
    // Runners first, the listener last: "herald is listening" means every part of this role is up.
    if (role !== 'api') {
      worker = await startWorker(container);
      deliveries = await startDeliveryRunner(container);
      logger.info({ role }, 'worker started');
    }
    let url: string | undefined;
    if (role !== 'worker') {
      app = await buildServer(container);
      await container.authenticator.listen(database.connectionString);
      url = await app.listen({ port: config.port, host: config.host });
      logger.info({ url, role }, 'herald is listening');
    }
    return { container, app, worker, deliveries, url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Starts Herald and keeps it running until SIGINT/SIGTERM; a second signal exits at once. */
export async function serveUntilSignalled(config: Config, role: Role): Promise<void> {
  const logger = createLogger(config.logLevel);
  // Handlers go in before starting: a signal that arrives while the worker is still starting (after the HTTP
  // server already listens) must stop Herald cleanly, not kill it.
  let stopping = false;
  let signalled: () => void = () => {};
  const stopRequested = new Promise<void>((resolve) => {
    signalled = resolve;
  });
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(130);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    signalled();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const running = await startHerald(config, role, { logger });
  await stopRequested;
  await running.stop().catch((error: unknown) => logger.error({ err: error }, 'shutdown failed'));
}
