// The simulators a Herald process serves, loaded on first use (docs/decisions.md "The simulators' routes are built
// on first use"): which platforms are simulated is known at once, while the simulators' modules are imported and
// their state built only when something first reaches them. Kept apart from server.ts, which imports them all.
import { PLATFORM_NAMES, type PlatformName } from '../platforms/limits.ts';
import type { Simulator, SimulatorOptions } from './framework/simulator.ts';

export interface SandboxSimulators {
  /** Every platform (each has a simulator, server.ts), or none when the sandbox is off. Loads nothing. */
  readonly platforms: readonly PlatformName[];
  /** The simulators by platform: the first call imports and builds them, every later call shares that result. */
  load(): Promise<Map<PlatformName, Simulator>>;
}

/** The simulators built from `options` on the first `load()`; `null` options: the sandbox is off, none. */
export function simulatorsOnFirstUse(options: SimulatorOptions | null): SandboxSimulators {
  if (!options) return { platforms: [], load: async () => new Map() };
  let loading: Promise<Map<PlatformName, Simulator>> | undefined;
  return {
    platforms: PLATFORM_NAMES,
    load: () =>
      (loading ??= import('./server.ts')
        .then(({ createSimulators }) => createSimulators(options, PLATFORM_NAMES))
        .catch((error: unknown) => {
          loading = undefined; // the next caller tries again
          throw error;
        })),
  };
}
