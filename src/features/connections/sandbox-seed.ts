// First start: the Sandbox workspace's default brand gets a sandbox connection for every platform Herald can
// publish to, so a newcomer can `npm start`, create a post and watch it publish with no credentials. Each
// platform is seeded once (recorded in instance_settings), so a platform added in a later release is seeded
// on the next start, and a connection the owner removed is not brought back.
import { withTransaction, type Pool } from '../../db/pool.ts';
import { inProcessTransport } from '../../sandbox/inprocess.ts';
import type { SandboxSimulators } from '../../sandbox/simulators.ts';
import { getSetting, setSetting } from '../workspaces/workspaces.repo.ts';
import type { ConnectionRow } from './connections.repo.ts';
import { addSandboxConnections } from './connections.service.ts';
import type { PlatformAccess } from './platform-access.ts';

const SEED_LOCK = 7_245_812_004;
const SEEDED = 'sandbox_connections_seeded';

export async function seedSandboxConnections(o: {
  pool: Pool;
  access: PlatformAccess;
  simulators: SandboxSimulators;
  workspaceId: string;
  brandId: string;
}): Promise<ConnectionRow[]> {
  if (o.simulators.platforms.length === 0) return [];
  return withTransaction(o.pool, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [SEED_LOCK]);
    const seeded = ((await getSetting(tx, SEEDED)) ?? '').split(',').filter(Boolean);
    const wanted = o.access.registry
      .available()
      .filter((p) => o.simulators.platforms.includes(p) && !seeded.includes(p));
    if (wanted.length === 0) return [];
    const { transport, close } = await inProcessTransport(o.simulators, o.access.sandboxUrl);
    try {
      const made = await addSandboxConnections(
        { db: tx, access: o.access, sandboxTransport: transport },
        { workspaceId: o.workspaceId, brandId: o.brandId, platforms: wanted },
      );
      await setSetting(tx, SEEDED, [...seeded, ...wanted].join(','));
      return made;
    } finally {
      await close();
    }
  });
}
