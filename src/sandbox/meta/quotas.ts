// The rolling 24-hour quotas of the Meta simulators (Instagram's 100 publishes and 400 containers, Threads' 250
// posts, 1,000 replies and 100 deletions), per account, kept in the store so that every node counts against the
// same quota and a restart forgets nothing. One small document per account and quota counts uses minute by minute
// (at most 1,440 entries, whatever the quota), so the window is exact to the minute: a use stops counting at most a
// minute early.
import type { SandboxStore } from '../framework/store.ts';

/** The span of the rolling quotas (and of a story's life). */
export const DAY_MS = 24 * 3600_000;
const MINUTE_MS = 60_000;

/** Uses per minute (the minute's number since the epoch, as text: a JSON key). */
interface QuotaUse {
  minutes: Record<string, number>;
}

const minuteOf = (t: number) => Math.floor(t / MINUTE_MS);

/** The uses still in the window, older minutes dropped. */
function live(doc: QuotaUse | undefined, now: number): QuotaUse {
  const oldest = minuteOf(now - DAY_MS) + 1;
  const minutes: Record<string, number> = {};
  for (const [minute, n] of Object.entries(doc?.minutes ?? {})) if (Number(minute) >= oldest) minutes[minute] = n;
  return { minutes };
}

const total = (doc: QuotaUse) => Object.values(doc.minutes).reduce((sum, n) => sum + n, 0);

/** How many uses of `quota` the account made in the last 24 hours. */
export async function quotaUsage(store: SandboxStore, quota: string, account: string, now: number): Promise<number> {
  return total(live(await store.get<QuotaUse>(`quota-${quota}`, account), now));
}

/**
 * Counts one use when the account has fewer than `limit` in the window, atomically (two nodes cannot both take
 * the last one). True when the use was counted.
 */
export async function takeQuota(
  store: SandboxStore,
  quota: string,
  account: string,
  now: number,
  limit: number,
): Promise<boolean> {
  const kind = `quota-${quota}`;
  const minute = String(minuteOf(now));
  for (;;) {
    let taken = false;
    const after = await store.update<QuotaUse>(kind, account, (doc) => {
      const use = live(doc, now);
      if (total(use) >= limit) return undefined;
      taken = true;
      use.minutes[minute] = (use.minutes[minute] ?? 0) + 1;
      return use;
    });
    if (after) return taken;
    if (limit < 1) return false;
    // The account's first use: an insert, unless another node made the document meanwhile (then count again).
    if (await store.insert<QuotaUse>(kind, account, { minutes: { [minute]: 1 } })) return true;
  }
}
