// Fixed rate-limit windows, the way X and Mastodon count (N calls per account per window, reset at the
// window's end). The limits come from each simulator's notes and can be multiplied for load tests.

export interface WindowDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch ms at which the window resets. */
  resetAt: number;
}

export interface RateWindows {
  hit(key: string, limit: number, windowMs: number): WindowDecision;
  reset(): void;
}

export function createRateWindows(now: () => number): RateWindows {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    hit(key, limit, windowMs) {
      const t = now();
      let w = windows.get(key);
      if (!w || t >= w.start + windowMs) {
        w = { start: t, count: 0 };
        windows.set(key, w);
      }
      const allowed = w.count < limit;
      if (allowed) w.count++;
      return { allowed, limit, remaining: Math.max(0, limit - w.count), resetAt: w.start + windowMs };
    },
    reset() {
      windows.clear();
    },
  };
}
