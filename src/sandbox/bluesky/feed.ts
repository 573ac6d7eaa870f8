// The AppView read a PDS proxies for its users: `app.bsky.feed.getPosts`, the post views with their counts
// (docs/platforms/bluesky.md "Metrics and inbox"). Counts grow with the simulator's clock
// (src/sandbox/framework/metrics-growth.ts); Bluesky has no views, so only likes, reposts, replies and quotes show.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { growMetrics } from '../framework/metrics-growth.ts';
import { applyFault, windowHeaders } from '../framework/simulator.ts';
import { bearer } from './auth.ts';
import { KIND, xrpcError, type BskyContext, type BskyRecord } from './state.ts';

/** The AppView takes at most 25 URIs per call. */
const MAX_URIS = 25;

interface PostsQuery {
  uris?: string | string[];
}

export function registerBskyFeed(app: FastifyInstance, ctx: BskyContext): void {
  app.get<{ Querystring: PostsQuery }>('/xrpc/app.bsky.feed.getPosts', (request, reply) =>
    getPosts(ctx, request, reply),
  );
}

async function getPosts(ctx: BskyContext, request: FastifyRequest<{ Querystring: PostsQuery }>, reply: FastifyReply) {
  const { kit, errorReply } = ctx;
  const caller = await bearer(kit, request, reply);
  if (!caller) return reply;
  // ⚠ unverified: the AppView's own limit for proxied reads; the PDS's general 3000 per 5 minutes is used.
  const window = kit.windows.hit(`read:${caller.did}`, kit.limit(3000), 5 * 60_000);
  reply.headers(windowHeaders(window, 'ietf'));
  if (!window.allowed) return reply.code(429).send(xrpcError('RateLimitExceeded', 'Rate Limit Exceeded'));
  if (applyFault(kit, { errorReply }, kit.faults.take('read_post', caller.did), request, reply, 'ietf') === 'sent')
    return reply;
  const raw = request.query.uris;
  const uris = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter(Boolean);
  if (uris.length === 0)
    return reply.code(400).send(xrpcError('InvalidRequest', 'Params must have the property "uris"'));
  if (uris.length > MAX_URIS)
    return reply.code(400).send(xrpcError('InvalidRequest', `uris must not have more than ${MAX_URIS} elements`));
  const records = await Promise.all(uris.map((uri) => kit.store.get<BskyRecord>(KIND.record, uri)));
  // A post the AppView does not have (deleted, unknown) is left out of the answer, not an error.
  const posts = records
    .filter((r): r is BskyRecord => r !== undefined && r.collection === 'app.bsky.feed.post')
    .map((r) => {
      const m = growMetrics(r.uri, r.createdAt, kit.now(), { audience: 600 });
      return {
        uri: r.uri,
        cid: r.cid,
        author: { did: r.did, handle: handleOf(r) },
        record: r.value,
        replyCount: m.comments,
        repostCount: m.shares,
        likeCount: m.likes,
        quoteCount: m.quotes,
        indexedAt: new Date(r.createdAt).toISOString(),
        labels: [],
      };
    });
  return { posts };
}

/** ⚠ The simulator keeps no handle on a record; the DID stands in (clients read counts, not the author view). */
function handleOf(r: BskyRecord): string {
  return r.did;
}
