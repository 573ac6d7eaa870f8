// Notifications (docs/inbox.md "Platforms"): `app.bsky.notification.listNotifications`, newest first, paged with an
// opaque `cursor` (limit 1–100, default 50), filtered by `reasons[]`. Other people's replies to the account's posts,
// replies in its threads, mentions of it and quotes of its posts are ordinary app.bsky.feed.post records in the
// repos of simulated people, written by the trickle and the control switch (src/sandbox/framework/inbox.ts); each
// makes one `notification` document owned by the account's DID. Bluesky's chat (DMs) is a separate service an app
// password does not reach without its own grant: the simulator offers no DMs, as Herald reads none.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { injectedItem, runTrickle, trickleItem, type InboxInjection, type InjectResult } from '../framework/inbox.ts';
import { applyFault, windowHeaders } from '../framework/simulator.ts';
import { bearer } from './auth.ts';
import {
  cidOf,
  didFor,
  KIND,
  newTid,
  threadKey,
  xrpcError,
  type BskyContext,
  type BskyRecord,
  type BskyThreadPart,
} from './state.ts';

const NOTIFICATION = 'notification';
const POST = 'app.bsky.feed.post';
/** A simulated person's handle by DID (the simulator keeps no handle on a record). */
const PERSON = 'person';

type Reason = 'reply' | 'mention' | 'quote';

interface BskyNotification {
  id: string;
  uri: string;
  reason: Reason;
  reasonSubject: string | null;
  createdAt: number;
}

interface NotificationsQuery {
  limit?: string;
  cursor?: string;
  'reasons[]'?: string | string[];
  reasons?: string | string[];
}

export function registerBskyNotifications(app: FastifyInstance, ctx: BskyContext): void {
  app.get<{ Querystring: NotificationsQuery }>('/xrpc/app.bsky.notification.listNotifications', (request, reply) =>
    listNotifications(ctx, request, reply),
  );
}

/** A simulated person's handle (`ana_lima` → `ana-lima.test`). */
const personHandle = (name: string) => `${name.toLowerCase().replace(/[^a-z0-9-]/g, '-')}.test`;

const strongRef = (r: BskyRecord) => ({ uri: r.uri, cid: r.cid });

/** The root of `parent`'s thread: its reply root, or itself. */
function rootOf(parent: BskyRecord): { uri: string; cid: string } {
  const reply = parent.value.reply as { root?: { uri: string; cid: string } } | undefined;
  return reply?.root ?? strongRef(parent);
}

/** Writes a post by `author` (a reply to `parent`, or quoting `quoted`) and notifies the account `to`. */
async function writeItem(
  ctx: BskyContext,
  input: { author: string; to: string; text: string; reason: Reason; parent?: BskyRecord; quoted?: BskyRecord },
): Promise<string> {
  const { kit } = ctx;
  const handle = personHandle(input.author);
  const did = didFor(handle);
  const text = input.reason === 'mention' ? `@${input.to} ${input.text}` : input.text;
  const value: Record<string, unknown> = { $type: POST, text, createdAt: new Date(kit.now()).toISOString() };
  if (input.reason === 'mention') {
    const end = Buffer.byteLength(`@${input.to}`);
    value.facets = [
      {
        index: { byteStart: 0, byteEnd: end },
        features: [{ $type: 'app.bsky.richtext.facet#mention', did: didFor(input.to) }],
      },
    ];
  }
  if (input.parent) value.reply = { root: rootOf(input.parent), parent: strongRef(input.parent) };
  if (input.quoted) value.embed = { $type: 'app.bsky.embed.record', record: strongRef(input.quoted) };
  const rkey = await newTid(kit);
  const uri = `at://${did}/${POST}/${rkey}`;
  const record: BskyRecord = {
    uri,
    cid: cidOf(JSON.stringify(value), 'dag-cbor'),
    did,
    collection: POST,
    rkey,
    value,
    createdAt: kit.now(),
  };
  if (input.parent) {
    const root = rootOf(input.parent).uri;
    await kit.store.insert<BskyThreadPart>(KIND.threadPart, uri, { uri }, threadKey(did, root));
  }
  await Promise.all([kit.store.put(KIND.record, uri, record, did), kit.store.put(PERSON, did, { handle })]);
  const note: BskyNotification = {
    id: await kit.snowflake(),
    uri,
    reason: input.reason,
    reasonSubject: input.parent?.uri ?? input.quoted?.uri ?? null,
    createdAt: kit.now(),
  };
  await kit.store.insert(NOTIFICATION, note.id, note, didFor(input.to));
  return uri;
}

async function newestPost(ctx: BskyContext, did: string): Promise<BskyRecord | undefined> {
  const own = await ctx.kit.store.list<BskyRecord>(KIND.record, { owner: did, match: { collection: POST }, limit: 1 });
  return own[0];
}

/** The control switch: replies (comment, reply), mentions and quotes (kind `mention` with a `post_id`). */
export async function injectBluesky(ctx: BskyContext, input: InboxInjection): Promise<InjectResult> {
  if (input.kind === 'dm' || input.kind === 'review')
    return { error: `Bluesky gives Herald no ${input.kind === 'dm' ? 'direct messages' : 'reviews'} (docs/inbox.md).` };
  const store = ctx.kit.store;
  const post = input.post_id
    ? await store.get<BskyRecord>(KIND.record, input.post_id)
    : await newestPost(ctx, didFor(input.account));
  if (input.post_id && !post) return { error: `No post ${input.post_id}.` };
  const parent = input.parent_id ? await store.get<BskyRecord>(KIND.record, input.parent_id) : post;
  if (input.parent_id && !parent) return { error: `No post ${input.parent_id}.` };
  if (input.kind !== 'mention' && !parent) return { error: `@${input.account} has no post to reply to.` };
  const ids: string[] = [];
  for (let i = 0; i < (input.count ?? 1); i++) {
    const { author, text } = injectedItem(input, i);
    const common = { author, to: input.account, text };
    ids.push(
      input.kind === 'mention'
        ? await writeItem(ctx, { ...common, reason: input.post_id ? 'quote' : 'mention', quoted: post })
        : await writeItem(ctx, { ...common, reason: 'reply', parent }),
    );
  }
  return { ids };
}

function listOf(v: string | string[] | undefined): string[] {
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).flatMap((s) => s.split(',')).filter(Boolean);
}

async function listNotifications(
  ctx: BskyContext,
  request: FastifyRequest<{ Querystring: NotificationsQuery }>,
  reply: FastifyReply,
) {
  const { kit, errorReply } = ctx;
  const caller = await bearer(kit, request, reply);
  if (!caller) return reply;
  // ⚠ unverified: the AppView's own limit for proxied reads; the PDS's general 3000 per 5 minutes is used.
  const window = kit.windows.hit(`read:${caller.did}`, kit.limit(3000), 5 * 60_000);
  reply.headers(windowHeaders(window, 'ietf'));
  if (!window.allowed) return reply.code(429).send(xrpcError('RateLimitExceeded', 'Rate Limit Exceeded'));
  if (applyFault(kit, { errorReply }, kit.faults.take('list_inbox', caller.did), request, reply, 'ietf') === 'sent')
    return reply;
  const q = request.query;
  const limit = q.limit === undefined ? 50 : Number(q.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    return reply.code(400).send(xrpcError('InvalidRequest', 'limit must be an integer from 1 to 100'));
  const own = await kit.store.list<BskyRecord>(KIND.record, {
    owner: caller.did,
    match: { collection: POST },
    limit: 50,
  });
  await runTrickle(
    kit,
    own.map((r) => ({ id: r.uri, createdAt: r.createdAt, record: r })),
    async (post, n) => {
      const { author, text } = trickleItem(post.id, n);
      await writeItem(ctx, { author, to: caller.handle, text, reason: 'reply', parent: post.record });
    },
  );
  const reasons = new Set(listOf(q['reasons[]'] ?? q.reasons));
  const before = q.cursor ? Buffer.from(q.cursor, 'base64url').toString() : undefined;
  const notes = await kit.store.list<BskyNotification>(NOTIFICATION, {
    owner: caller.did,
    beforeId: before,
    limit: limit + 1,
  });
  const page = notes.slice(0, limit);
  const out: Array<Record<string, unknown>> = [];
  for (const n of page) {
    if (reasons.size > 0 && !reasons.has(n.reason)) continue;
    const record = await kit.store.get<BskyRecord>(KIND.record, n.uri);
    if (!record) continue; // deleted since: the AppView leaves it out
    const handle = (await kit.store.get<{ handle: string }>(PERSON, record.did))?.handle ?? record.did;
    out.push({
      uri: record.uri,
      cid: record.cid,
      author: { did: record.did, handle, displayName: handle.replace(/\.test$/, '') },
      reason: n.reason,
      ...(n.reasonSubject ? { reasonSubject: n.reasonSubject } : {}),
      record: record.value,
      isRead: false,
      indexedAt: new Date(n.createdAt).toISOString(),
      labels: [],
    });
  }
  return {
    notifications: out,
    ...(notes.length > limit ? { cursor: Buffer.from(page.at(-1)!.id).toString('base64url') } : {}),
  };
}
