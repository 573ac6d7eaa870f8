// Where the simulators live: mounted in Herald under /sandbox/<platform> (so `npm start` publishes end to end
// with no platform credentials; Herald imports this module on first use, simulators.ts), or started standalone on
// an ephemeral port (tests, load tests), each platform under /<platform>. Adding a simulator is one line in
// SIMULATORS.
import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import type { PlatformName } from '../platforms/limits.ts';
import {
  createSimulator,
  type PlatformSimulator,
  type Simulator,
  type SimulatorKit,
  type SimulatorOptions,
} from './framework/simulator.ts';
import { mountSimulators } from './mount.ts';
import { blueskySimulator } from './bluesky/index.ts';
import { linkedinSimulator } from './linkedin/index.ts';
import { mastodonSimulator } from './mastodon/index.ts';
import { xSimulator } from './x/index.ts';
import { instagramSimulator } from './instagram/index.ts';
import { threadsSimulator } from './threads/index.ts';
import { facebookSimulator } from './facebook/index.ts';
import { tiktokSimulator } from './tiktok/index.ts';
import { youtubeSimulator } from './youtube/index.ts';
import { pinterestSimulator } from './pinterest/index.ts';
import { googlebusinessSimulator } from './googlebusiness/index.ts';

/** Every platform's simulator: each has one, so which platforms are simulated is known without this module. */
export const SIMULATORS: Record<PlatformName, (kit: SimulatorKit) => PlatformSimulator> = {
  x: xSimulator,
  bluesky: blueskySimulator,
  mastodon: mastodonSimulator,
  linkedin: linkedinSimulator,
  instagram: instagramSimulator,
  threads: threadsSimulator,
  facebook: facebookSimulator,
  tiktok: tiktokSimulator,
  youtube: youtubeSimulator,
  pinterest: pinterestSimulator,
  googlebusiness: googlebusinessSimulator,
};

export function simulatedPlatforms(): PlatformName[] {
  return Object.keys(SIMULATORS) as PlatformName[];
}

export function createSimulators(
  options: SimulatorOptions,
  platforms: readonly PlatformName[] = simulatedPlatforms(),
): Map<PlatformName, Simulator> {
  const out = new Map<PlatformName, Simulator>();
  for (const name of platforms) out.set(name, createSimulator(name, SIMULATORS[name], options));
  return out;
}

export interface RunningSandbox {
  /** http://127.0.0.1:<port> — each platform lives under /<platform>. */
  url: string;
  baseUrl(platform: PlatformName): string;
  simulator(platform: PlatformName): Simulator;
  close(): Promise<void>;
}

/**
 * Starts the simulators standalone on an ephemeral loopback port, control surface on. `atRoot` serves a single
 * platform at `/` — as real instances and PDSs are — for clients that ignore a base path (masto, @atproto/api).
 */
export async function startSandbox(
  options: Partial<SimulatorOptions> & {
    platforms?: PlatformName[];
    atRoot?: boolean;
    /** Listen on this port (a restart of a sandbox whose URL Herald already holds); default: an ephemeral one. */
    port?: number;
  } = {},
): Promise<RunningSandbox> {
  const simulators = createSimulators(
    { secret: options.secret ?? randomBytes(16).toString('hex'), control: true, ...options },
    options.platforms,
  );
  if (options.atRoot && simulators.size !== 1) throw new Error('atRoot serves exactly one platform');
  const app = Fastify({ logger: false, forceCloseConnections: true });
  if (options.atRoot) await app.register(async (instance) => [...simulators.values()][0]!.plugin(instance));
  else await mountSimulators(app, simulators, '');
  const url = (await app.listen({ port: options.port ?? 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1');
  return {
    url,
    baseUrl: (platform) => (options.atRoot ? url : `${url}/${platform}`),
    simulator(platform) {
      const sim = simulators.get(platform);
      if (!sim) throw new Error(`${platform} is not simulated here`);
      return sim;
    },
    close: () => app.close(),
  };
}
