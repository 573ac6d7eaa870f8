// Keeps connections working for months: every 5 minutes, tokens expiring within 15 minutes are refreshed (a
// refused refresh marks the connection expired and emits `connection.expired`), and connect links that ended a
// day ago are forgotten.
import type { Pool } from '../../db/pool.ts';
import { deleteEndedConnectLinks } from '../../features/connections/connect.repo.ts';
import { refreshExpiringConnections } from '../../features/connections/lifecycle.ts';
import type { PlatformAccess } from '../../features/connections/platform-access.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';

export function refreshConnectionsTask(deps: { pool: Pool; access: PlatformAccess; logger: Logger; clock: Clock }) {
  return async function refreshConnections(): Promise<void> {
    const tally = await refreshExpiringConnections(deps, deps.clock.now());
    if (tally.renewed + tally.expired + tally.failed > 0)
      deps.logger.info(tally, 'connection tokens refreshed ahead of expiry');
    const links = await deleteEndedConnectLinks(deps.pool, 24 * 3600);
    if (links > 0) deps.logger.info({ removed: links }, 'ended connect links removed');
  };
}
