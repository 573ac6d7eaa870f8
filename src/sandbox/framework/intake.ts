// What a simulator lets in before a route runs. Herald mounts the simulators on every install, so they are a public
// surface (docs/architecture.md "Security model"):
// - each route takes at most the platform's own largest body (one chunk where the platform uploads in chunks),
//   1 MiB where it takes JSON or a form, refused from its Content-Length before a byte is read;
// - a request that carries no token this simulator issued (Authorization header or query) is anonymous: its body
//   is held to 1 MiB, except where the platform takes the token inside the body (Facebook's multipart uploads);
// - an anonymous request whose small body holds no such token either spends the host's anonymous budget (`admit`:
//   Herald's per-address rate limit), so a flood is answered 429 with Retry-After.
import { Transform, type Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PlatformName } from '../../platforms/limits.ts';
import { parseBody } from './body.ts';
import type { TokenSigner } from './tokens.ts';

const MiB = 1024 * 1024;
const MB = 1_000_000;

/** The body limit of every simulator route without a rule below, and of every anonymous request. */
export const DEFAULT_BODY_LIMIT = MiB;

interface RouteIntake {
  limit: number;
  /** The platform takes the access token as a body field: anonymous bodies may then reach `limit`. */
  tokenInBody?: boolean;
}

/** Upload routes by platform and route path, with room for multipart framing over the platform's maximum. */
const UPLOAD_ROUTES: Partial<Record<PlatformName, Record<string, RouteIntake>>> = {
  x: {
    '/2/media/upload': { limit: 16 * MiB }, // the whole-file upload: images (5 MB) and GIFs (15 MB)
    '/2/media/upload/:id/append': { limit: 6 * MiB }, // one segment (Herald sends 4 MiB)
  },
  bluesky: { '/xrpc/com.atproto.repo.uploadBlob': { limit: 100 * MB } }, // the simulator's BLOB_LIMIT
  mastodon: { '/api/v2/media': { limit: 100 * MiB } }, // videoSizeLimit: 99 MiB
  youtube: { '/upload/youtube/v3/videos': { limit: 9 * MiB } }, // one resumable chunk (Herald sends 8 MiB)
  linkedin: { '/dms-uploads/:urn/:part': { limit: 101 * MB } }, // a document (100 MB) goes in one PUT
  facebook: {
    '/:version/:pageId/photos': { limit: 11 * MB, tokenInBody: true }, // MAX_PHOTO_BYTES: 10 MB
    '/:version/:pageId/videos': { limit: 6 * MiB, tokenInBody: true }, // one transfer chunk (4 MiB)
  },
  tiktok: { '/upload/video/:publishId': { limit: 128 * MiB } }, // one chunk: the final one may be 128 MB
  // The S3 form of a video: one request, signed by its `policy` field rather than a bearer token. Pinterest takes
  // 2 GB; the simulator holds a body in memory, so it stops at 256 MiB (docs/platforms/pinterest.md "Limits").
  pinterest: { '/s3-upload/': { limit: 256 * MiB, tokenInBody: true } },
};

/** What the host decides of an anonymous request: Herald spends its anonymous budget per client address. */
export interface Admission {
  allowed: boolean;
  /** Sent with a refusal (Retry-After and the rate-limit headers). */
  headers: Record<string, string>;
}
export type Admit = (request: FastifyRequest) => Promise<Admission>;

interface IntakeOptions {
  name: PlatformName;
  tokens: TokenSigner;
  admit?: Admit;
  refuse(reply: FastifyReply, status: number, message: string): FastifyReply;
}

function bearerOrQueryToken(tokens: TokenSigner, request: FastifyRequest): boolean {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^(?:Bearer|OAuth) +(\S+)/i.exec(header) : null;
  if (match && tokens.authentic(match[1]!)) return true;
  const query: unknown = request.query;
  if (typeof query !== 'object' || query === null) return false;
  return Object.values(query).some((v) => typeof v === 'string' && tokens.authentic(v));
}

function bodyToken(tokens: TokenSigner, request: FastifyRequest): boolean {
  if (!Buffer.isBuffer(request.body) || request.body.length === 0) return false;
  const { fields } = parseBody(request.headers['content-type'], request.body);
  return Object.values(fields).some((v) => typeof v === 'string' && tokens.authentic(v));
}

const hasBody = (request: FastifyRequest) =>
  request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;

/** Ends a body stream with a 413 once it passes `cap` bytes (a chunked body declares no length to check). */
function capped(payload: Readable, cap: number): Readable {
  let seen = 0;
  const out = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > cap) done(Object.assign(new Error('Payload Too Large'), { statusCode: 413 }));
      else done(null, chunk);
    },
  });
  payload.on('error', (error) => out.destroy(error));
  return payload.pipe(out);
}

/** Registers the intake hooks on a simulator's plugin instance, before its routes. */
export function registerIntake(app: FastifyInstance, o: IntakeOptions): void {
  const rules = UPLOAD_ROUTES[o.name] ?? {};
  const byUrl = new Map<string, RouteIntake>();
  const caps = new WeakMap<FastifyRequest, number>();
  const unpaid = new WeakSet<FastifyRequest>();
  app.addHook('onRoute', (route) => {
    const rule = route.routePath !== undefined ? rules[route.routePath] : undefined;
    route.bodyLimit = rule?.limit ?? DEFAULT_BODY_LIMIT;
    if (rule) byUrl.set(route.url, rule);
  });

  async function spend(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    if (!o.admit) return undefined;
    const decision = await o.admit(request);
    if (decision.allowed) return undefined;
    reply.headers(decision.headers);
    return o.refuse(reply, 429, 'Too Many Requests');
  }

  app.addHook('onRequest', async (request, reply) => {
    const rule = byUrl.get(request.routeOptions.url ?? '');
    const limit = rule?.limit ?? DEFAULT_BODY_LIMIT;
    const trusted = bearerOrQueryToken(o.tokens, request);
    const cap = trusted || rule?.tokenInBody ? limit : Math.min(limit, DEFAULT_BODY_LIMIT);
    if (Number(request.headers['content-length'] ?? 0) > cap) {
      // Refused from the headers: the body is never read, and the connection closes rather than drain it.
      reply.header('connection', 'close');
      return cap < limit ? o.refuse(reply, 401, 'Unauthorized') : o.refuse(reply, 413, 'Payload Too Large');
    }
    if (trusted) return undefined;
    caps.set(request, cap);
    if (!hasBody(request)) return spend(request, reply);
    // The token may be in the (small) body: the budget is spent once the body is read, in preHandler.
    unpaid.add(request);
    return undefined;
  });
  app.addHook('preParsing', async (request, _reply, payload) => {
    const cap = caps.get(request);
    return cap === undefined ? payload : capped(payload, cap);
  });
  app.addHook('preHandler', async (request, reply) => {
    if (!unpaid.has(request) || bodyToken(o.tokens, request)) return undefined;
    return spend(request, reply);
  });
}
