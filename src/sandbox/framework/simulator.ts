// The simulator framework: what every platform simulator shares. A simulator is a Fastify plugin built from
// a platform module (its routes and state) and a kit (clock, signed tokens, fault switches, rate windows).
// Herald mounts the plugins under /sandbox/<platform>; tests start them standalone (server.ts). Every body is
// taken as bytes and decoded by the route, so the platform's own formats work whatever the host app parses.
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PlatformName } from '../../platforms/limits.ts';
import { createFaultBoard, isFaultRule, type FaultBoard, type FaultRule } from './faults.ts';
import { DEFAULT_BODY_LIMIT, registerIntake, type Admit } from './intake.ts';
import { parseInjection, type InboxInjection, type InjectResult } from './inbox.ts';
import { createRateWindows, type RateWindows, type WindowDecision } from './rate-windows.ts';
import { memoryStore, type SandboxStore } from './store.ts';
import { authorizeSigned, createTokenSigner, type TokenSigner } from './tokens.ts';

/** What the read endpoint reports of each post a simulator holds. */
export interface SandboxPost {
  id: string;
  account: string;
  text: string;
  replyTo: string | null;
  media: number;
  createdAt: string;
  deleted: boolean;
}

export interface SimulatorOptions {
  /** Signs the simulator's tokens; Herald derives it from its own secret so tokens survive restarts. */
  secret: string;
  now?: () => number;
  /** Multiplies every rate limit (load tests). Default 1. */
  rateLimitFactor?: number;
  /** Expose the control surface under `/_sandbox` (faults, the posts read endpoint, reset). */
  control?: boolean;
  random?: () => number;
  /** Platform-specific settings of a simulator (e.g. a Mastodon instance's `maxCharacters`). */
  settings?: Record<string, unknown>;
  /** Where each simulator keeps its state (Herald: PostgreSQL, store-pg.ts). Default: a fresh in-memory store. */
  store?: (simulator: PlatformName) => SandboxStore;
}

/** How many snowflake sequence numbers a simulator takes from the shared counter at a time. */
const SNOWFLAKE_BLOCK = 1024n;

/** The shared machinery a platform module is given. */
export interface SimulatorKit {
  name: PlatformName;
  now(): number;
  tokens: TokenSigner;
  faults: FaultBoard;
  windows: RateWindows;
  /** Platform-specific settings given to the simulator (SimulatorOptions.settings). */
  settings: Record<string, unknown>;
  /** The simulator's state: every account, post, media item and comment lives here, never only in memory. */
  store: SandboxStore;
  /** A snowflake-like id (time-ordered numeric string), unique across restarts and API nodes. */
  snowflake(): Promise<string>;
  /** A rate limit of the platform's notes, scaled by `rateLimitFactor`. */
  limit(n: number): number;
  /** Holds the request open without answering (the `hang` fault). */
  hang(request: FastifyRequest, reply: FastifyReply): FastifyReply;
  /** Drops the connection without an answer, after the work was done (the `lost_response` fault). */
  dropConnection(request: FastifyRequest, reply: FastifyReply): FastifyReply;
  /**
   * Whether an authorize request may sign in as the account `username` it names: a flow Herald started (its
   * `sandbox_sig`), or a trusted mount (in-process, or a standalone rig with the control surface). A simulated
   * account belongs to the workspace that first signed in as it (`sandbox_ws`, covered by the signature): another
   * workspace naming it is refused, so no test workspace can take over the account behind another's connection.
   */
  mayNameAccount(request: FastifyRequest, q: Record<string, string | undefined>, username: string): Promise<boolean>;
}

/**
 * Applies a fault every platform shares, in the platform's own shapes. Returns 'sent' when the answer went out
 * (or never will: `hang`), 'drop' when the caller must do the work and then drop the connection, and undefined
 * when the fault is the route's own business (media faults, X's duplicate) or there is none.
 */
export function applyFault(
  kit: SimulatorKit,
  platform: Pick<PlatformSimulator, 'errorReply'>,
  fault: FaultRule | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  rateStyle: 'x' | 'mastodon' | 'ietf',
): 'sent' | 'drop' | undefined {
  if (!fault) return undefined;
  switch (fault.fault) {
    case 'rate_limited': {
      const resetAt = kit.now() + (fault.retryAfterSeconds ?? 2) * 1000;
      reply.headers(windowHeaders({ allowed: false, limit: 1, remaining: 0, resetAt }, rateStyle));
      platform.errorReply(reply, 429, 'Too Many Requests');
      return 'sent';
    }
    case 'expired_token':
      platform.errorReply(reply, 401, 'Token expired');
      return 'sent';
    case 'server_error':
      platform.errorReply(reply, 503, 'Service Unavailable');
      return 'sent';
    case 'hang':
      kit.hang(request, reply);
      return 'sent';
    case 'lost_response':
      return 'drop';
    default:
      return undefined;
  }
}

export interface PlatformSimulator {
  routes(app: FastifyInstance): void;
  /** The platform's error body for a status (its own shape: problem JSON, XRPC, Mastodon's `{error}`). */
  errorReply(reply: FastifyReply, status: number, message: string): FastifyReply;
  posts(): Promise<SandboxPost[]>;
  /** Makes other accounts comment, reply, mention, message or review (src/sandbox/framework/inbox.ts). */
  inject?(input: InboxInjection): Promise<InjectResult>;
  /** Forgets what the simulator holds outside its store (caches); the store itself is cleared by the framework. */
  reset?(): void;
}

export interface Simulator {
  readonly name: PlatformName;
  readonly kit: SimulatorKit;
  readonly faults: FaultBoard;
  posts(): Promise<SandboxPost[]>;
  /** Injects inbox items (the control switch of docs/inbox.md "Test mode"); an error when the platform has none. */
  inject(input: InboxInjection): Promise<InjectResult>;
  /** Forgets every account, post and media item (ids handed out are still never reused), faults and windows. */
  reset(): Promise<void>;
  /** Registers the simulator's routes on `app` (use inside a prefixed plugin). */
  plugin(app: FastifyInstance, mount?: MountOptions): Promise<void>;
}

/** How a host mounts a simulator: Herald passes its anonymous rate limit. */
export interface MountOptions {
  admit?: Admit;
  /** Requests cannot come from outside Herald (the in-process transport): sign-ins need no `sandbox_sig`. */
  trusted?: boolean;
}

export function createSimulator(
  name: PlatformName,
  build: (kit: SimulatorKit) => PlatformSimulator,
  options: SimulatorOptions,
): Simulator {
  const now = options.now ?? Date.now;
  const factor = options.rateLimitFactor ?? 1;
  const held = new Set<Socket>();
  const trusted = new WeakSet<FastifyRequest>();
  const faults = createFaultBoard(options.random);
  const store = options.store?.(name) ?? memoryStore();
  let ids = { next: 0n, end: 0n };
  let refill: Promise<void> | undefined;
  /** Whether `username` is free or already this workspace's; the first workspace to name it keeps it. */
  const ownedBy = async (username: string, workspace: string) => {
    const key = username.toLowerCase();
    if (await store.insert('account-owner', key, { workspace })) return true;
    return (await store.get<{ workspace: string }>('account-owner', key))?.workspace === workspace;
  };
  const kit: SimulatorKit = {
    name,
    now,
    tokens: createTokenSigner(`${name}:${options.secret}`, now),
    faults,
    windows: createRateWindows(now),
    settings: options.settings ?? {},
    store,
    async snowflake() {
      // The 22 low bits are a sequence no two ids share: blocks of it come from a shared counter, one block per
      // SNOWFLAKE_BLOCK ids (a counter row updated for every id made each post of a burst wait for that row's
      // lock). Two ids of one millisecond (nodes whose clocks differ, a clock stepping back, a frozen test clock)
      // differ unless four million ids came between them; a restart takes a new block, never an old one.
      while (ids.next >= ids.end) {
        refill ??= store
          .next('snowflake-block')
          .then((block) => {
            ids = { next: block * SNOWFLAKE_BLOCK, end: (block + 1n) * SNOWFLAKE_BLOCK };
          })
          .finally(() => {
            refill = undefined;
          });
        await refill;
      }
      const seq = ids.next++ % 4194304n;
      return ((BigInt(now() - 1288834974657) << 22n) | seq).toString();
    },
    limit: (n) => Math.max(1, Math.round(n * factor)),
    hang(request, reply) {
      const socket = request.raw.socket;
      reply.hijack();
      if (socket) {
        held.add(socket);
        // Never hold a socket forever: the client's deadline is far shorter than this.
        const limit = setTimeout(() => socket.destroy(), 120_000).unref();
        socket.once('close', () => {
          held.delete(socket);
          clearTimeout(limit);
        });
      }
      return reply;
    },
    dropConnection(request, reply) {
      reply.hijack();
      request.raw.socket?.destroy();
      return reply;
    },
    async mayNameAccount(request, q, username) {
      if (!trusted.has(request) && !authorizeSigned(options.secret, name, q)) return false;
      // A trusted caller that names no workspace (a standalone test rig) holds its accounts under the empty tag:
      // once named that way, an account is refused to every workspace, as a workspace's own are to the others.
      return ownedBy(username, q.sandbox_ws ?? '');
    },
  };
  const platform = build(kit);
  const simulator: Simulator = {
    name,
    kit,
    faults,
    posts: () => platform.posts(),
    inject: (input) =>
      platform.inject ? platform.inject(input) : Promise.resolve({ error: `The ${name} simulator has no inbox.` }),
    async reset() {
      await store.clear();
      platform.reset?.();
      faults.clear();
      kit.windows.reset();
    },
    async plugin(app, mount = {}) {
      app.removeAllContentTypeParsers();
      // Each route's own limit (intake.ts) applies; this one is for the not-found handler.
      app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: DEFAULT_BODY_LIMIT }, (_request, body, done) =>
        done(null, body),
      );
      if (mount.trusted || options.control)
        app.addHook('onRequest', async (request) => {
          trusted.add(request);
        });
      registerIntake(app, {
        name,
        tokens: kit.tokens,
        admit: mount.admit,
        refuse: (reply, status, message) => platform.errorReply(reply, status, message),
      });
      app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
        const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
        return platform.errorReply(reply, status, status === 500 ? 'Internal Server Error' : error.message);
      });
      app.setNotFoundHandler((_request, reply) => platform.errorReply(reply, 404, 'Not Found'));
      app.addHook('onClose', async () => {
        for (const socket of held) socket.destroy();
      });
      platform.routes(app);
      if (options.control) registerControl(app, simulator);
    },
  };
  return simulator;
}

/** `/_sandbox/…`: the control surface tests use. Not part of any platform's API. */
function registerControl(app: FastifyInstance, sim: Simulator): void {
  app.get('/_sandbox/posts', async () => ({ platform: sim.name, posts: await sim.posts() }));
  app.get('/_sandbox/faults', async () => ({ rules: sim.faults.rules(), fired: sim.faults.fired() }));
  app.post('/_sandbox/inbox', async (request, reply) => {
    const input = parseInjection(request.body);
    if (typeof input === 'string') return reply.code(400).send({ error: input });
    const result = await sim.inject(input);
    return 'error' in result ? reply.code(400).send(result) : result;
  });
  app.post('/_sandbox/faults', async (request, reply) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '[]');
    } catch {
      parsed = undefined;
    }
    const rules = Array.isArray(parsed) ? parsed : [parsed];
    if (!rules.every(isFaultRule))
      return reply.code(400).send({
        error:
          'Send a fault rule or a list of them: { fault, operation?, account?, times?, probability?, retryAfterSeconds?, delayMs? }.',
      });
    for (const rule of rules as FaultRule[]) sim.faults.add(rule);
    return { rules: sim.faults.rules() };
  });
  app.delete('/_sandbox/faults', async () => {
    sim.faults.clear();
    return { rules: [] };
  });
  app.post('/_sandbox/reset', async () => {
    await sim.reset();
    return { reset: true };
  });
}

/** Headers of a fixed window in the X / Mastodon style. */
export function windowHeaders(d: WindowDecision, style: 'x' | 'mastodon' | 'ietf'): Record<string, string> {
  if (style === 'x')
    return {
      'x-rate-limit-limit': String(d.limit),
      'x-rate-limit-remaining': String(d.remaining),
      'x-rate-limit-reset': String(Math.ceil(d.resetAt / 1000)),
    };
  if (style === 'mastodon')
    return {
      'x-ratelimit-limit': String(d.limit),
      'x-ratelimit-remaining': String(d.remaining),
      'x-ratelimit-reset': new Date(d.resetAt).toISOString(),
    };
  return {
    'ratelimit-limit': String(d.limit),
    'ratelimit-remaining': String(d.remaining),
    'ratelimit-reset': String(Math.ceil(d.resetAt / 1000)),
    'ratelimit-policy': `${d.limit}`,
  };
}

/** A stable numeric id from a name (X user ids are numeric strings): the same name always maps to the same id. */
export function numericId(seed: string): string {
  let h = 1469598103934665603n;
  for (const byte of Buffer.from(seed)) h = ((h ^ BigInt(byte)) * 1099511628211n) % 10n ** 18n;
  return (h + 10n ** 17n).toString();
}
