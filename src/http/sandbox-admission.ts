// Herald's rate limit on the simulators it mounts under /sandbox: a request that carries no token the simulator
// issued is anonymous and spends the same anonymous budget per client address as sign-in and the OAuth routes
// (src/sandbox/framework/intake.ts decides what is anonymous; this file only spends the budget).
import type { FastifyRequest } from 'fastify';
import { budgetsFor, rateLimitHeaders, type RateLimiter } from '../app/rate-limit.ts';
import type { Admit } from '../sandbox/framework/intake.ts';
import { clientIp } from './access.ts';

export function sandboxAdmission(rateLimiter: RateLimiter, limits: Parameters<typeof budgetsFor>[0]): Admit {
  const budget = budgetsFor(limits).anonymous;
  return async (request: FastifyRequest) => {
    const decision = await rateLimiter.take(clientIp(request), budget);
    return { allowed: decision.allowed, headers: rateLimitHeaders(decision, budget.name) };
  };
}
