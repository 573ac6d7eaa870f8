// The accounts and locations a Business Profile user manages, as the simulator serves them: the Account Management
// API's `GET /v1/accounts` and the Business Information API's `GET /v1/{accounts/*}/locations` and
// `GET /v1/{locations/*}` (with the `readMask` both require). Herald's connect flow lists them so a connection is made
// for the one location the user picks. The shared gate (token, rate window, faults) runs first.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FaultRule } from '../framework/faults.ts';
import { applyFault, windowHeaders } from '../framework/simulator.ts';
import { authenticate } from './auth.ts';
import type { GbpContext, GbpLocation, GbpUser } from './state.ts';

/**
 * Every authenticated call: the token, the rate window and the operation's faults. Google's default quota is 300
 * queries a minute per project (⚠ unverified: kept per user here, with IETF rate headers Google does not send).
 */
export async function gate(
  ctx: GbpContext,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: string,
): Promise<{ user: GbpUser; drop: boolean; fault: FaultRule | undefined } | undefined> {
  const { kit, errorReply } = ctx;
  const user = await authenticate(ctx, request, reply);
  if (!user) return undefined;
  const window = kit.windows.hit(`all:${user.account}`, kit.limit(300), 60_000);
  reply.headers(windowHeaders(window, 'ietf'));
  if (!window.allowed) {
    errorReply(reply, 429, "Quota exceeded for quota metric 'Requests' of service 'mybusiness.googleapis.com'.");
    return undefined;
  }
  const fault = kit.faults.take(operation, user.account);
  const applied = applyFault(kit, { errorReply }, fault, request, reply, 'ietf');
  return applied === 'sent' ? undefined : { user, drop: applied === 'drop', fault };
}

/** A location as the Business Information API shows it, limited to the fields `readMask` names. */
function locationJson(location: GbpLocation, readMask: string) {
  const full: Record<string, unknown> = {
    name: location.name,
    title: location.title,
    storefrontAddress: { regionCode: 'US', locality: location.locality, addressLines: ['1 Main Street'] },
    metadata: { hasVoiceOfMerchant: true, canHaveBusinessCalls: true },
  };
  const fields = readMask.split(',').map((f) => f.trim());
  return Object.fromEntries(Object.entries(full).filter(([k]) => fields.includes(k)));
}

export function registerGbpAccounts(app: FastifyInstance, ctx: GbpContext): void {
  app.get('/v1/accounts', async (request, reply) => {
    const g = await gate(ctx, request, reply, 'accounts');
    if (!g) return reply;
    const { user } = g;
    return {
      accounts: [
        { name: user.account, accountName: user.accountName, type: 'PERSONAL', verificationState: 'VERIFIED' },
      ],
    };
  });
  app.get<{ Params: { account: string }; Querystring: { readMask?: string } }>(
    '/v1/accounts/:account/locations',
    async (request, reply) => {
      const g = await gate(ctx, request, reply, 'locations');
      if (!g) return reply;
      if (!request.query.readMask)
        return ctx.errorReply(reply, 400, 'Request contains an invalid argument: read_mask.');
      if (`accounts/${request.params.account}` !== g.user.account)
        return ctx.errorReply(reply, 403, 'The caller does not have permission');
      return { locations: g.user.locations.map((l) => locationJson(l, request.query.readMask!)) };
    },
  );
  app.get<{ Params: { location: string }; Querystring: { readMask?: string } }>(
    '/v1/locations/:location',
    async (request, reply) => {
      const g = await gate(ctx, request, reply, 'location');
      if (!g) return reply;
      if (!request.query.readMask)
        return ctx.errorReply(reply, 400, 'Request contains an invalid argument: read_mask.');
      const location = g.user.locations.find((l) => l.name === `locations/${request.params.location}`);
      if (!location) return ctx.errorReply(reply, 404, 'Requested entity was not found.');
      return locationJson(location, request.query.readMask);
    },
  );
}
