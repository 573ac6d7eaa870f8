// Which PostgreSQL this process talks to: DATABASE_URL when set, else the embedded cluster in the data dir
// (attached to if another process owns it, started otherwise).
import type { Config } from '../config.ts';
import type { Logger } from '../lib/logger.ts';
import { openEmbeddedCluster } from './embedded.ts';

export interface DatabaseHandle {
  connectionString: string;
  embedded: boolean;
  /** Stops the embedded cluster if this process started it; otherwise does nothing. */
  close(): Promise<void>;
}

export async function openDatabase(
  config: Config,
  logger: Pick<Logger, 'info' | 'warn' | 'error'>,
): Promise<DatabaseHandle> {
  if (config.databaseUrl) return { connectionString: config.databaseUrl, embedded: false, close: async () => {} };
  const cluster = await openEmbeddedCluster({
    dataDir: config.dataDir,
    log: { info: (m) => logger.info(m), warn: (m) => logger.warn(m), error: (m) => logger.error(m) },
  });
  return { connectionString: cluster.connectionString, embedded: true, close: () => cluster.stop() };
}
