// Mounting simulators on a Fastify app, each under `<prefix>/<platform>`: Herald's /sandbox, the in-process
// transport and the standalone sandbox all do it. Apart from server.ts so that mounting imports no simulator.
import type { FastifyInstance } from 'fastify';
import type { PlatformName } from '../platforms/limits.ts';
import type { MountOptions, Simulator } from './framework/simulator.ts';

/** Registers each simulator under `<prefix>/<platform>`; Herald's public mount passes its rate limit in `mount`. */
export async function mountSimulators(
  app: FastifyInstance,
  simulators: Map<PlatformName, Simulator>,
  prefix: string,
  mount: MountOptions = {},
): Promise<void> {
  for (const [name, sim] of simulators) {
    await app.register(async (instance) => sim.plugin(instance, mount), { prefix: `${prefix}/${name}` });
  }
}
