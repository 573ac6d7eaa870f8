// What the container-publishing Meta simulators (Instagram, Threads) share around their routes: the start of
// every Graph call (version, token, the per-account call budget and its usage headers), the `fields` selection,
// Graph timestamps and shortcodes (and back), the own-account check of a path, and the refusal of a container that
// cannot be published. Each platform's messages and budgets are parameters.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SimulatorKit } from '../framework/simulator.ts';
import type { ContainerStatusName, SimContainer } from './containers.ts';
import { graphError, graphParams, usageHeaders, versionOf, type GraphErrorSpec } from './graph.ts';

/**
 * The store owner of an account's items on one edge (Instagram's `media` and `stories`, Threads' `threads` and
 * `replies`): a page of one edge reads that edge's items, never the account's others.
 */
export function edgeOwner(account: string, edge: string): string {
  return `${account} ${edge}`;
}

/** A time as Graph writes it: `2025-01-02T03:04:05+0000`. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+0000');
}

/** The `fields` asked for, or the fallback when none are. */
export function fieldsOf(params: Record<string, string>, fallback: string[]): string[] {
  const list = (params.fields ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  return list.length > 0 ? list : fallback;
}

/** The id and the asked-for fields of an object. */
export function pick(all: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { id: all.id };
  for (const f of fields) if (all[f] !== undefined) out[f] = all[f];
  return out;
}

const SHORTCODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** An Instagram-style shortcode of a numeric id (base64url digits, 11 at most). */
export function shortcodeOf(id: string): string {
  const alphabet = SHORTCODE_ALPHABET;
  let n = BigInt(id);
  let out = '';
  while (n > 0n) {
    out = alphabet[Number(n % 64n)]! + out;
    n /= 64n;
  }
  return out.slice(-11);
}

/**
 * The id a shortcode stands for (a post's page is found by it without a search); undefined for text that is no
 * shortcode. Graph ids have 17 to 19 digits, under 64^11, so their shortcodes are never cut.
 */
export function idOfShortcode(shortcode: string): string | undefined {
  if (!/^[A-Za-z0-9_-]{1,11}$/.test(shortcode)) return undefined;
  let n = 0n;
  for (const c of shortcode) n = n * 64n + BigInt(SHORTCODE_ALPHABET.indexOf(c));
  return n.toString();
}

/** The path parameters every Graph route has: the version prefix (`v23.0`). */
export interface GraphPath {
  version: string;
}

/** A path under an account (or, for Threads' `replies`, under a post): `/{version}/{user-id or me}/…`. */
export interface GraphAccountPath extends GraphPath {
  userId: string;
}

/** A path under a media object or post: `/{version}/{media-id}/…`. */
export interface GraphMediaPath extends GraphPath {
  mediaId: string;
}

/** A node read or deleted by id: `/{version}/{id}`. */
export interface GraphNodePath extends GraphPath {
  id: string;
}

export interface GraphCallSpec<A> {
  /** The key prefix of the per-account call window (`ig-calls`). */
  windowPrefix: string;
  /** The usage headers' type (`instagram`). */
  usageType: string;
  callsPerHour: number;
  /** The caller behind the token, or undefined once the token's error is answered. */
  authenticate(request: FastifyRequest, reply: FastifyReply, params: Record<string, string>): A | undefined;
  userId(auth: A): string;
  /** The answer past the call budget. */
  limited: GraphErrorSpec;
}

/** What every Graph call goes through: version, token, the per-account call budget and the usage headers. */
export function beginGraphCall<A>(
  kit: SimulatorKit,
  spec: GraphCallSpec<A>,
  request: FastifyRequest<{ Params: GraphPath }>,
  reply: FastifyReply,
): { auth: A; params: Record<string, string> } | undefined {
  const version = request.params.version;
  if (versionOf(`/${version}/`) === false) {
    graphError(reply, 400, { message: `Unknown path components: /${version}`, code: 2500 });
    return undefined;
  }
  const { params } = graphParams(request);
  const auth = spec.authenticate(request, reply, params);
  if (!auth) return undefined;
  const userId = spec.userId(auth);
  const window = kit.windows.hit(`${spec.windowPrefix}:${userId}`, kit.limit(spec.callsPerHour), 3600_000);
  const used = ((window.limit - window.remaining) / window.limit) * 100;
  reply.headers(
    usageHeaders(
      userId,
      spec.usageType,
      window.allowed ? used : 100,
      window.allowed ? 0 : Math.ceil((window.resetAt - kit.now()) / 60_000),
    ),
  );
  if (!window.allowed) {
    graphError(reply, 400, spec.limited);
    return undefined;
  }
  return { auth, params };
}

/** The account a path names: its id or `me`; another account is out of reach of this token. */
export function ownAccount(reply: FastifyReply, userId: string, id: string, prefix: string): boolean {
  if (id === 'me' || id === userId) return true;
  graphError(reply, 400, {
    message: `${prefix} Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    type: 'GraphMethodException',
    code: 100,
    subcode: 33,
  });
  return false;
}

export interface UnpublishableSpecs {
  notReady: GraphErrorSpec;
  expired: string;
  published: string;
}

/** The refusal of publishing a container that is not FINISHED, or undefined when it is. */
export function refuseUnpublishable<T>(
  reply: FastifyReply,
  status: ContainerStatusName,
  container: SimContainer<T>,
  specs: UnpublishableSpecs,
): FastifyReply | undefined {
  if (status === 'IN_PROGRESS') return graphError(reply, 400, specs.notReady);
  if (status === 'ERROR')
    return graphError(reply, 400, {
      message: `The media could not be published: ${container.failure}`,
      code: 100,
      subcode: 2207001,
    });
  if (status === 'EXPIRED') return graphError(reply, 400, { message: specs.expired, code: 100, subcode: 2207020 });
  if (status === 'PUBLISHED') return graphError(reply, 400, { message: specs.published, code: 100, subcode: 2207008 });
  return undefined;
}
