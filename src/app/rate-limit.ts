// Rate limits by GCRA (docs/api.md "Rate limits"): one stored number per budget, the theoretical arrival time (TAT).
// A request is allowed when, after adding one emission interval, the TAT is at most one window ahead of now.
// Budgets live in memory by default, or in Redis (one Lua script, Redis's own clock) when REDIS_URL is set so
// that several API processes share them. A Redis failure fails open and is counted.
import { createRequire } from 'node:module';
import type { Redis as RedisClient } from 'ioredis';
import type { Logger } from '../lib/logger.ts';

export interface Budget {
  /** Name shown in `RateLimit-Policy`, e.g. "read". */
  name: string;
  /** Requests per window; also the burst. */
  limit: number;
  windowMs: number;
}

const MINUTE = 60_000;

/**
 * The budgets of docs/api.md "Rate limits", per key (read, write) and per client IP (anonymous). MCP spends the
 * same ones.
 */
export function budgetsFor(limits: {
  readPerMinute: number;
  writePerMinute: number;
  anonymousPerMinute: number;
}): Record<'read' | 'write' | 'anonymous', Budget> {
  return {
    read: { name: 'read', limit: limits.readPerMinute, windowMs: MINUTE },
    write: { name: 'write', limit: limits.writePerMinute, windowMs: MINUTE },
    anonymous: { name: 'anonymous', limit: limits.anonymousPerMinute, windowMs: MINUTE },
  };
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Milliseconds until the budget is full again (RateLimit `t`, X-RateLimit-Reset). */
  resetMs: number;
  /** When refused: milliseconds until one request fits. */
  retryAfterMs: number;
  policy: string;
}

export interface RateLimitStore {
  /** Takes one unit from `key`'s budget; returns the TAT after the call and whether it was allowed. */
  take(key: string, intervalMs: number, windowMs: number): Promise<{ allowed: boolean; tatMs: number; nowMs: number }>;
  close(): Promise<void>;
}

export function createMemoryStore(now: () => number = Date.now): RateLimitStore {
  const tats = new Map<string, number>();
  let sweeps = 0;
  return {
    async take(key, intervalMs, windowMs) {
      const t = now();
      const tat = Math.max(tats.get(key) ?? t, t);
      const next = tat + intervalMs;
      if (++sweeps % 10_000 === 0) for (const [k, v] of tats) if (v < t) tats.delete(k);
      if (next - t > windowMs) return { allowed: false, tatMs: tat, nowMs: t };
      tats.set(key, next);
      return { allowed: true, tatMs: next, nowMs: t };
    },
    async close() {},
  };
}

// KEYS[1] budget key; ARGV[1] interval ms; ARGV[2] window ms. Uses Redis TIME so API nodes' clocks do not matter.
const GCRA_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local nxt = tat + interval
if nxt - now > window then return {0, tat, now} end
redis.call('SET', KEYS[1], nxt, 'PX', math.ceil(nxt - now) + 1000)
return {1, nxt, now}`;

export function createRedisStore(url: string, logger: Logger, onError: () => void): RateLimitStore {
  // No offline queue and a short timeout: when Redis is away, requests go on (fail open) instead of waiting.
  // Loaded here, not at start: only a deployment with REDIS_URL pays for the client (docs/decisions.md "Start-up
  // loads what serving needs").
  const { Redis } = createRequire(import.meta.url)('ioredis') as { Redis: typeof RedisClient };
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 250,
    lazyConnect: false,
  });
  let lastWarn = 0;
  redis.on('error', (error: Error) => {
    if (Date.now() - lastWarn > 10_000) {
      lastWarn = Date.now();
      logger.warn({ err: error.message }, 'redis unavailable: rate limits fail open until it is back');
    }
  });
  redis.defineCommand('heraldGcra', { numberOfKeys: 1, lua: GCRA_SCRIPT });
  return {
    async take(key, intervalMs, windowMs) {
      try {
        const [allowed, tat, now] = (await (
          redis as unknown as { heraldGcra(k: string, i: number, w: number): Promise<number[]> }
        ).heraldGcra(`herald:rl:${key}`, intervalMs, windowMs)) as [number, number, number];
        return { allowed: allowed === 1, tatMs: tat, nowMs: now };
      } catch {
        onError();
        return { allowed: true, tatMs: Date.now(), nowMs: Date.now() };
      }
    },
    async close() {
      redis.disconnect();
    },
  };
}

export interface RateLimiter {
  take(key: string, budget: Budget): Promise<RateDecision>;
  close(): Promise<void>;
}

export function createRateLimiter(store: RateLimitStore): RateLimiter {
  return {
    async take(key, budget) {
      const intervalMs = budget.windowMs / budget.limit;
      const { allowed, tatMs, nowMs } = await store.take(`${budget.name}:${key}`, intervalMs, budget.windowMs);
      const ahead = Math.max(0, tatMs - nowMs);
      const remaining = Math.max(0, Math.floor((budget.windowMs - ahead) / intervalMs + 1e-9));
      return {
        allowed,
        limit: budget.limit,
        remaining: allowed ? remaining : 0,
        resetMs: Math.ceil(ahead),
        retryAfterMs: allowed ? 0 : Math.ceil(ahead + intervalMs - budget.windowMs),
        policy: `"${budget.name}";q=${budget.limit};w=${Math.round(budget.windowMs / 1000)}`,
      };
    },
    close: () => store.close(),
  };
}

/**
 * The response headers of docs/api.md "Rate limits" for one decision (legacy X-RateLimit-* and the IETF draft-11
 * pair).
 */
export function rateLimitHeaders(
  decision: RateDecision,
  budgetName: string,
  nowMs: number = Date.now(),
): Record<string, string> {
  const resetSeconds = Math.ceil(decision.resetMs / 1000);
  const headers: Record<string, string> = {
    'x-ratelimit-limit': String(decision.limit),
    'x-ratelimit-remaining': String(decision.remaining),
    'x-ratelimit-reset': String(Math.ceil((nowMs + decision.resetMs) / 1000)),
    'ratelimit-policy': decision.policy,
    ratelimit: `"${budgetName}";r=${decision.remaining};t=${resetSeconds}`,
  };
  if (!decision.allowed) headers['retry-after'] = String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
  return headers;
}
