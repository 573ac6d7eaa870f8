// `herald serve`: starts the API, the worker or both on one database, and stops them cleanly on SIGINT/SIGTERM
// (HTTP first, so no new work arrives, within a deadline; then the worker; then the pool; then the embedded
// cluster if we own it).
import type { FastifyInstance } from 'fastify';
import { requireAddresses, type Config, type Role } from './config.ts';
import { buildContainer, type Container } from './container.ts';
import { openDatabase, type DatabaseHandle } from './db/connect.ts';
import { migrate, pendingMigrations } from './db/migrate.ts';
import { firstStart } from './first-start.ts';
import { closeWithin } from './http/limits.ts';
import { buildServer } from './http/server.ts';
import { startMetricsListener, type MetricsListener } from './http/metrics.ts';
import { startDeliveryRunner, type DeliveryRunner } from './jobs/deliveries.ts';
import { startWorker, type WorkerHandle } from './jobs/worker.ts';
import { settleHeap } from './lib/young-gc.ts';
import { createLogger, type Logger, type LoggerOptions } from './lib/logger.ts';
import { smtpPassword } from './lib/mailer.ts';
import { PUBLIC_URL_SETTING, setSetting } from './features/workspaces/workspaces.repo.ts';
import { resolveKeyring } from './lib/secrets.ts';

export interface Running {
  container: Container;
  app?: FastifyInstance;
  worker?: WorkerHandle;
  deliveries?: DeliveryRunner;
  url?: string;
  /** The metrics listener's address (HERALD_METRICS_PORT set). */
  metricsUrl?: string;
  stop(): Promise<void>;
}

/**
 * Runs migrations and the first-start bootstrap (first-start.ts, the same as `herald init`); prints the one-time
 * key when the Sandbox was just created, and the owner's generated password whenever the owner has none yet.
 */
async function prepare(container: Container, print: (text: string) => void): Promise<void> {
  const applied = await migrate(container.pool);
  if (applied.length > 0) container.logger.info({ applied }, 'migrations applied');
  const done = await firstStart(container);
  if (done.text) print(done.text);
}

/** How a server process logs: HERALD_LOG_FORMAT, and the secret keys and SMTP password, literals no line may carry. */
export function logOptions(config: Config): LoggerOptions & { secrets: string[] } {
  const smtp = config.mail.smtpUrl ? smtpPassword(config.mail.smtpUrl) : '';
  return {
    format: config.logFormat,
    secrets: [...(config.secretKey ? [config.secretKey] : []), ...config.previousSecretKeys, ...(smtp ? [smtp] : [])],
  };
}

export async function startHerald(
  config: Config,
  role: Role,
  options: { logger?: Logger; print?: (text: string) => void } = {},
): Promise<Running> {
  const logging = logOptions(config);
  const logger = options.logger ?? createLogger(config.logLevel, undefined, logging);
  const print = options.print ?? ((text: string) => process.stdout.write(`${text}\n`));
  let database: DatabaseHandle | undefined;
  let container: Container | undefined;
  let app: FastifyInstance | undefined;
  let worker: WorkerHandle | undefined;
  let deliveries: DeliveryRunner | undefined;
  let metricsListener: MetricsListener | undefined;
  const stop = async () => {
    // Requests in flight get HERALD_SHUTDOWN_TIMEOUT_MS; a client that holds its socket longer (a slow body, a
    // stalled download) is cut off then, or it would keep the whole process (and its worker) alive.
    if (app)
      await closeWithin(app, config.http.shutdownTimeoutMs, () =>
        logger.warn({ grace_ms: config.http.shutdownTimeoutMs }, 'closing HTTP connections still open'),
      ).catch((e: unknown) => logger.error({ err: e }, 'closing HTTP server'));
    await metricsListener?.close().catch((e: unknown) => logger.error({ err: e }, 'closing the metrics listener'));
    await worker?.stop().catch((e: unknown) => logger.error({ err: e }, 'stopping worker'));
    await deliveries?.stop().catch((e: unknown) => logger.error({ err: e }, 'stopping webhook delivery runner'));
    await container?.close().catch((e: unknown) => logger.error({ err: e }, 'closing database pool'));
    await database?.close().catch((e: unknown) => logger.error({ err: e }, 'stopping embedded PostgreSQL'));
  };
  requireAddresses(config, role);
  try {
    database = await openDatabase(config, logger);
    const keyring = await resolveKeyring(config, logger);
    // A key generated into the data dir is as secret as one set in the environment.
    if (!logging.secrets.includes(keyring.current)) logging.secrets.push(keyring.current);
    container = buildContainer({ config, logger, connectionString: database.connectionString, keyring });
    if (role === 'all') {
      await prepare(container, print);
    } else {
      const pending = await pendingMigrations(container.pool);
      if (pending.length > 0) {
        throw new Error(
          `Migrations are pending (${pending.join(', ')}): this build needs them and --role ${role} never applies them. Run \`herald migrate\` with this build first, then start it (docs/deploy.md, "Upgrades").`,
        );
      }
    }
    // Runners first, the listener last: "herald is listening" means every part of this role is up.
    if (role !== 'api') {
      worker = await startWorker(container);
      deliveries = await startDeliveryRunner(container);
      logger.info({ role }, 'worker started');
    }
    if (config.metrics.port !== undefined) {
      metricsListener = await startMetricsListener(container.metrics, { ...config.metrics, port: config.metrics.port });
      logger.info({ url: metricsListener.url, role }, 'metrics listener started');
      if (config.metrics.token === undefined && !/^(127\.|::1$|localhost$)/.test(config.metrics.host))
        logger.warn(
          { host: config.metrics.host },
          'the metrics listener answers anyone who reaches this address: set HERALD_METRICS_TOKEN',
        );
    }
    let url: string | undefined;
    if (role !== 'worker') {
      app = await buildServer(container, {
        loops:
          worker && deliveries
            ? () => ({ publishing_runner: worker!.running, delivery_runner: deliveries!.running })
            : undefined,
      });
      await container.authenticator.listen(database.connectionString);
      url = await app.listen({ port: config.port, host: config.host });
      // CLI commands that print links read it (src/cli/command.ts): the address this server is reached at.
      await setSetting(container.pool, PUBLIC_URL_SETTING, config.publicUrlDefaulted ? url : config.publicUrl);
      logger.info({ url, role }, 'herald is listening');
    }
    return { container, app, worker, deliveries, url, metricsUrl: metricsListener?.url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Starts Herald and keeps it running until SIGINT/SIGTERM; a second signal exits at once. */
export async function serveUntilSignalled(config: Config, role: Role): Promise<void> {
  const logger = createLogger(config.logLevel, undefined, logOptions(config));
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
  // Start-up's garbage (migrations checked, routes and simulators registered) filled a young generation V8 then
  // keeps; one compacting collection now returns it before traffic comes (docs/operations.md "Memory").
  settleHeap();
  await stopRequested;
  await running.stop().catch((error: unknown) => logger.error({ err: error }, 'shutdown failed'));
}
