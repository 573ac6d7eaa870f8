// What every /rest call passes before its own work: the LinkedIn-Version header (missing → 400, retired or not
// yet released → 426 NONEXISTENT_VERSION), X-Restli-Protocol-Version 2.0.0, then the bearer token and scopes;
// and the context every /rest route handler is given.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';
import { authenticate, versionProblem } from './auth.ts';
import { liError, type LiMember } from './state.ts';

export type Gate = (
  request: FastifyRequest,
  reply: FastifyReply,
  scopes: string[],
  anyOf?: boolean,
) => Promise<{ member: LiMember; errors: Pick<PlatformSimulator, 'errorReply'> } | undefined>;

/** What every /rest route handler works with: the kit (its store holds the state) and the gate. */
export interface LiContext {
  kit: SimulatorKit;
  gate: Gate;
  /** Where the simulator is mounted (`/sandbox/linkedin` in Herald), for the URLs it hands out. */
  prefix: string;
}

export function createGate(kit: SimulatorKit, errors: Pick<PlatformSimulator, 'errorReply'>): Gate {
  return async (request, reply, scopes, anyOf = false) => {
    const version = versionProblem(kit, request.headers['linkedin-version']);
    if (version) {
      reply.code(version.status).send(version.body);
      return undefined;
    }
    // ⚠ unverified: that LinkedIn refuses a /rest call without the Rest.li 2.0 header (the docs make it mandatory).
    if (request.headers['x-restli-protocol-version'] !== '2.0.0') {
      reply
        .code(400)
        .send(
          liError(400, 'X-Restli-Protocol-Version: 2.0.0 is required on /rest calls', { code: 'ILLEGAL_ARGUMENT' }),
        );
      return undefined;
    }
    const member = await authenticate(kit, request, reply, scopes, anyOf);
    return member ? { member, errors } : undefined;
  };
}

export function hostOf(request: FastifyRequest, prefix: string): string {
  return `${request.protocol}://${request.headers.host}${prefix}`;
}
