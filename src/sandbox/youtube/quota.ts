// The simulator's daily quota (docs/platforms/youtube.md "Rate limits"): 10,000 units a day, videos.insert 1,600,
// list calls 1, videos.delete 50, the day ending at midnight Pacific time. Google charges the Cloud project; the
// simulator charges the project per channel (⚠ a simplification, so that test workspaces sharing the sandbox's
// client do not spend each other's budget). `youtubeDailyQuota` (a simulator setting) changes the budget, scaled like
// every simulated limit.
import { pacificDay } from '../../platforms/youtube/quota.ts';
import type { SimulatorKit } from '../framework/simulator.ts';
import type { Caller } from './auth.ts';
import { KIND, type YoutubeContext } from './state.ts';

export const COST = { insert: 1600, list: 1, delete: 50 } as const;
const DEFAULT_DAILY_UNITS = 10_000;

export function dailyQuota(kit: SimulatorKit): number {
  const q = kit.settings.youtubeDailyQuota;
  return kit.limit(typeof q === 'number' && q >= 0 ? q : DEFAULT_DAILY_UNITS);
}

/** Spends `units` of today's budget; false (nothing spent) when they do not fit. Atomic across API nodes. */
export async function spend(ctx: YoutubeContext, caller: Caller, units: number): Promise<boolean> {
  const { kit } = ctx;
  const budget = dailyQuota(kit);
  const key = `${caller.project}:${caller.channel.id}:${pacificDay(kit.now())}`;
  for (;;) {
    let spent = false;
    const after = await kit.store.update<{ units: number }>(KIND.quota, key, (doc) => {
      if (doc.units + units > budget) return undefined;
      spent = true;
      return { units: doc.units + units };
    });
    if (after) return spent;
    if (units > budget) return false;
    // The day's first call: an insert, unless another node made the document meanwhile (then spend again).
    if (await kit.store.insert(KIND.quota, key, { units })) return true;
  }
}

export const QUOTA_EXCEEDED = 'quotaExceeded: The request cannot be completed because you have exceeded your quota.';
