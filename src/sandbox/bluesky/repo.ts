// The repository side of the Bluesky simulator: uploadBlob, createRecord (client-chosen record keys: a second
// create at the same key is a 500, as on a real PDS — checked against @atproto/dev-env), getRecord (400
// RecordNotFound), listRecords, deleteRecord, sync.getBlob (a blob's bytes, public as on a PDS); the repo-write rate
// limit in points; the web page of a post with its thread. Records and blobs live in the sandbox store.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { sendMissingPost, sendPostPage, type PagePart } from '../framework/post-page.ts';
import { applyFault, windowHeaders } from '../framework/simulator.ts';
import { sniff } from '../framework/sniff.ts';
import { bearer } from './auth.ts';
import {
  blobKey,
  cidOf,
  didFor,
  isRecordKey,
  KIND,
  newTid,
  threadKey,
  xrpcError,
  type BskyAccount,
  type BskyBlob,
  type BskyContext,
  type BskyRecord,
  type BskyThreadPart,
} from './state.ts';
import { loadReferences, postRecordIssue } from './validate.ts';
import { typeUploadedBytes, uploadedBytesHeaders } from '../framework/served-bytes.ts';

const BLOB_LIMIT = 100_000_000; // a self-hosted PDS defaults to 5 MB (PDS_BLOB_UPLOAD_LIMIT); the simulator takes videos too

/** A record's address in the query of getRecord and listRecords: the repo by DID or handle. */
interface RecordQuery {
  repo?: string;
  collection?: string;
  rkey?: string;
}

interface ListQuery {
  repo?: string;
  collection?: string;
  limit?: string;
  cursor?: string;
}

interface BlobQuery {
  did?: string;
  cid?: string;
}

const POST = 'app.bsky.feed.post';

export function registerBskyRepo(app: FastifyInstance, ctx: BskyContext): void {
  app.post('/xrpc/com.atproto.repo.uploadBlob', (request, reply) => uploadBlob(ctx, request, reply));
  app.post('/xrpc/com.atproto.repo.createRecord', (request, reply) => createRecord(ctx, request, reply));
  app.get<{ Querystring: RecordQuery }>('/xrpc/com.atproto.repo.getRecord', (request, reply) =>
    getRecord(ctx, request, reply),
  );
  app.get<{ Querystring: ListQuery }>('/xrpc/com.atproto.repo.listRecords', (request) => listRecords(ctx, request));
  app.post('/xrpc/com.atproto.repo.deleteRecord', (request, reply) => deleteRecord(ctx, request, reply));
  app.get<{ Querystring: BlobQuery }>('/xrpc/com.atproto.sync.getBlob', (request, reply) =>
    getBlob(ctx, request, reply),
  );
  // Sandbox URLs of posts point here (the real ones are https://bsky.app/profile/<handle>/post/<rkey>).
  app.get<{ Params: { actor: string; rkey: string } }>('/profile/:actor/post/:rkey', (request, reply) =>
    postPage(ctx, request, reply),
  );
}

/** A repo named by DID or handle, as its DID (a handle's DID is derived from it). */
const repoDid = (repo: string | undefined) => (repo?.startsWith('did:') ? repo : didFor(repo ?? ''));

async function uploadBlob(ctx: BskyContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit, errorReply } = ctx;
  const caller = await bearer(kit, request, reply);
  if (!caller) return reply;
  const window = kit.windows.hit(`blob:${caller.did}`, kit.limit(1000), 24 * 3600_000);
  reply.headers(windowHeaders(window, 'ietf'));
  if (!window.allowed) return reply.code(429).send(xrpcError('RateLimitExceeded', 'Rate Limit Exceeded'));
  const fault = kit.faults.take('upload_media', caller.did);
  if (applyFault(kit, { errorReply }, fault, request, reply, 'ietf') === 'sent') return reply;
  if (fault?.fault === 'media_failed')
    return reply.code(400).send(xrpcError('InvalidRequest', 'Unable to process the blob (injected)'));
  if (fault?.fault === 'slow_media') await new Promise((r) => setTimeout(r, fault.delayMs ?? 3000));
  const data = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  if (data.length === 0) return reply.code(400).send(xrpcError('InvalidRequest', 'Request body is empty'));
  if (data.length > BLOB_LIMIT) return reply.code(400).send(xrpcError('BlobTooLarge', 'This file is too large'));
  // The PDS sniffs the bytes; the declared type only breaks ties.
  const mimeType = sniff(data) ?? String(request.headers['content-type'] ?? 'application/octet-stream').split(';')[0]!;
  const cid = cidOf(data, 'raw');
  const blob: BskyBlob = { cid, did: caller.did, mimeType, size: data.length };
  // The bytes are named by their CID alone (the same bytes are the same blob); the repo's claim on them is its own.
  await Promise.all([
    kit.store.putBytes(cid, data),
    kit.store.put(KIND.blob, blobKey(caller.did, cid), blob, caller.did),
  ]);
  return { blob: { $type: 'blob', ref: { $link: cid }, mimeType, size: data.length } };
}

/** Writes a record at a client-chosen or new key; app.bsky.feed.post records get the lexicon checks. */
async function createRecord(ctx: BskyContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit, errorReply } = ctx;
  const caller = await bearer(kit, request, reply);
  if (!caller) return reply;
  // 5,000 points per hour, a create costs 3 (docs/platforms/bluesky.md "Rate limits").
  const window = kit.windows.hit(`writes:${caller.did}`, kit.limit(1666), 3600_000);
  reply.headers(windowHeaders(window, 'ietf'));
  if (!window.allowed) return reply.code(429).send(xrpcError('RateLimitExceeded', 'Rate Limit Exceeded'));
  const fault = kit.faults.take('create_post', caller.did);
  const applied = applyFault(kit, { errorReply }, fault, request, reply, 'ietf');
  if (applied === 'sent') return reply;
  const { fields, valid } = parseBody(request.headers['content-type'], request.body);
  if (!valid) return reply.code(400).send(xrpcError('InvalidRequest', 'Request body must be JSON'));
  if (fields.repo !== caller.did && fields.repo !== caller.handle)
    return reply.code(400).send(xrpcError('InvalidRequest', 'Invalid repo'));
  const collection = fields.collection;
  if (typeof collection !== 'string' || !/^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+\.[A-Za-z]+$/.test(collection))
    return reply.code(400).send(xrpcError('InvalidRequest', 'Invalid collection'));
  if (fields.rkey !== undefined && !isRecordKey(String(fields.rkey)))
    return reply
      .code(400)
      .send(xrpcError('InvalidRequest', `Invalid record key (got "${String(fields.rkey)}") at $.rkey`));
  const record = fields.record as Record<string, unknown> | undefined;
  if (!record || typeof record !== 'object')
    return reply.code(400).send(xrpcError('InvalidRequest', 'Input must have the property "record"'));
  // The commit's revision (and the key, when the client chose none), with the post's references, in one wait.
  const [tid, refs] = await Promise.all([
    newTid(kit),
    collection === POST ? loadReferences(kit.store, caller.did, record) : undefined,
  ]);
  if (refs) {
    // The `item_deleted` fault: the post replied to is gone (as if deleted just before the reply).
    const replyRef = record.reply as { parent?: { uri?: string } } | undefined;
    if (fault?.fault === 'item_deleted' && replyRef?.parent?.uri) refs.records.delete(replyRef.parent.uri);
    const issue = postRecordIssue(refs, caller.did, record);
    if (issue?.startsWith('BlobNotFound:'))
      return reply.code(400).send(xrpcError('BlobNotFound', issue.slice('BlobNotFound:'.length)));
    if (issue) return reply.code(400).send(xrpcError('InvalidRequest', issue));
  }
  const rkey = fields.rkey === undefined ? tid : String(fields.rkey);
  const uri = `at://${caller.did}/${collection}/${rkey}`;
  // A record's CID is the hash of its content, as in atproto; the commit's includes its never-repeating revision.
  const cid = cidOf(JSON.stringify(record), 'dag-cbor');
  const stored: BskyRecord = { uri, cid, did: caller.did, collection, rkey, value: record, createdAt: kit.now() };
  // A reply is listed under its thread's root first, so a stored reply is on its thread's page (a part whose record
  // is missing is skipped there).
  const root = collection === POST ? replyOf(stored)?.root : undefined;
  if (root) await kit.store.insert<BskyThreadPart>(KIND.threadPart, uri, { uri }, threadKey(caller.did, root));
  if (!(await kit.store.insert(KIND.record, uri, stored, caller.did)))
    return reply.code(500).send(xrpcError('InternalServerError', 'Internal Server Error'));
  if (applied === 'drop') return kit.dropConnection(request, reply);
  return { uri, cid, commit: { cid: cidOf(`${uri}${cid}${tid}`, 'dag-cbor'), rev: tid }, validationStatus: 'valid' };
}

async function getRecord(ctx: BskyContext, request: FastifyRequest<{ Querystring: RecordQuery }>, reply: FastifyReply) {
  const { kit, errorReply } = ctx;
  const q = request.query;
  const uri = `at://${repoDid(q.repo)}/${q.collection}/${q.rkey}`;
  const record = await kit.store.get<BskyRecord>(KIND.record, uri);
  if (!record) return reply.code(400).send(xrpcError('RecordNotFound', `Could not locate record: ${uri}`));
  if (applyFault(kit, { errorReply }, kit.faults.take('lookup', record.did), request, reply, 'ietf') === 'sent')
    return reply;
  return { uri, cid: record.cid, value: record.value };
}

/**
 * A repo's records of one collection, newest first, paged by `cursor` (the last key of the previous page): one page
 * read from the store. ⚠ A PDS orders by record key; the simulator by when records were written, which is the same
 * for the time-ordered keys (TIDs) clients use. A cursor whose record was deleted ends the listing.
 */
async function listRecords(ctx: BskyContext, request: FastifyRequest<{ Querystring: ListQuery }>) {
  const q = request.query;
  const limit = Math.min(100, Math.max(1, Number(q.limit ?? 50) || 50));
  const did = repoDid(q.repo);
  const page = await ctx.kit.store.list<BskyRecord>(KIND.record, {
    owner: did,
    match: { collection: q.collection },
    limit,
    beforeId: q.cursor ? `at://${did}/${q.collection}/${q.cursor}` : undefined,
  });
  return {
    records: page.map((r) => ({ uri: r.uri, cid: r.cid, value: r.value })),
    ...(page.length === limit ? { cursor: page.at(-1)!.rkey } : {}),
  };
}

async function deleteRecord(ctx: BskyContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit } = ctx;
  const caller = await bearer(kit, request, reply);
  if (!caller) return reply;
  const { fields } = parseBody(request.headers['content-type'], request.body);
  const uri = `at://${caller.did}/${String(fields.collection)}/${String(fields.rkey)}`;
  const [, , rev] = await Promise.all([
    kit.store.delete(KIND.record, uri),
    kit.store.delete(KIND.threadPart, uri),
    newTid(kit),
  ]);
  return { commit: { cid: cidOf(`delete ${uri} ${rev}`, 'dag-cbor'), rev } };
}

/**
 * A blob's bytes, public as on a PDS. Served with the PDS's own guards (no sniffing, a sandboxed CSP), and only
 * images and videos as themselves: anything else a client declared comes back as an opaque download.
 */
async function getBlob(ctx: BskyContext, request: FastifyRequest<{ Querystring: BlobQuery }>, reply: FastifyReply) {
  const { did = '', cid = '' } = request.query;
  if (!did || !cid) return reply.code(400).send(xrpcError('InvalidRequest', 'did and cid are required'));
  const [blob, bytes] = await Promise.all([
    ctx.kit.store.get<BskyBlob>(KIND.blob, blobKey(did, cid)),
    ctx.kit.store.getBytes(cid),
  ]);
  if (!blob || !bytes) return reply.code(400).send(xrpcError('BlobNotFound', 'Blob not found'));
  return typeUploadedBytes(reply, blob.mimeType).headers(uploadedBytesHeaders(3600)).send(bytes);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The URIs of a post's reply refs, when it is a reply. */
function replyOf(record: BskyRecord): { root: string; parent: string } | undefined {
  const reply = record.value.reply;
  if (!isObj(reply) || !isObj(reply.root) || !isObj(reply.parent)) return undefined;
  return { root: String(reply.root.uri), parent: String(reply.parent.uri) };
}

/**
 * The thread a post belongs to, as its author's page shows it: from the thread's root (when it is the same
 * account's) down the chain of the account's replies to itself, each to the part before it. Read from the
 * thread's own parts: a page costs the length of its thread, not the repo's history.
 */
async function threadOf(ctx: BskyContext, record: BskyRecord): Promise<BskyRecord[]> {
  const { store } = ctx.kit;
  const rootUri = replyOf(record)?.root ?? record.uri;
  const [root, parts] = await Promise.all([
    rootUri === record.uri ? record : store.get<BskyRecord>(KIND.record, rootUri),
    store.list<BskyThreadPart>(KIND.threadPart, { owner: threadKey(record.did, rootUri), ascending: true }),
  ]);
  const replies = (await Promise.all(parts.map((p) => store.get<BskyRecord>(KIND.record, p.uri)))).filter(
    (r): r is BskyRecord => r !== undefined,
  );
  const chainFrom = (first: BskyRecord) => {
    const chain = [first];
    for (let next = first; ;) {
      const child = replies.find((r) => replyOf(r)?.parent === next.uri);
      if (!child || chain.includes(child)) return chain;
      chain.push((next = child));
    }
  };
  const fromRoot = root && root.did === record.did ? chainFrom(root) : [];
  return fromRoot.some((r) => r.uri === record.uri) ? fromRoot : chainFrom(record);
}

/** The media of a post as its page shows them: images and video, each at the PDS's public blob URL. */
function mediaOf(record: BskyRecord, host: string): PagePart['media'] {
  const e = record.value.embed;
  if (!isObj(e)) return [];
  const url = (blob: unknown) => {
    const link = isObj(blob) && isObj(blob.ref) ? String(blob.ref.$link) : '';
    return `${host}/xrpc/com.atproto.sync.getBlob?${new URLSearchParams({ did: record.did, cid: link })}`;
  };
  if (Array.isArray(e.images))
    return e.images
      .filter(isObj)
      .map((img) => ({ url: url(img.image), kind: 'image' as const, alt: String(img.alt ?? '') }));
  if (e.video !== undefined)
    return [{ url: url(e.video), kind: 'video', alt: typeof e.alt === 'string' ? e.alt : null }];
  return [];
}

/** The page of a post (and its thread), the way bsky.app shows it; a missing or deleted post is a 404. */
async function postPage(
  ctx: BskyContext,
  request: FastifyRequest<{ Params: { actor: string; rkey: string } }>,
  reply: FastifyReply,
) {
  const { store } = ctx.kit;
  const { actor, rkey } = request.params;
  const did = repoDid(actor);
  const record = await store.get<BskyRecord>(KIND.record, `at://${did}/${POST}/${rkey}`);
  if (!record) return sendMissingPost(reply, 'Bluesky');
  const [account, profile, thread] = await Promise.all([
    store.get<BskyAccount>(KIND.account, did),
    store.get<BskyRecord>(KIND.record, `at://${did}/app.bsky.actor.profile/self`),
    threadOf(ctx, record),
  ]);
  const handle = account?.handle ?? (actor.startsWith('did:') ? did : actor);
  const host = `${request.protocol}://${request.headers.host}${ctx.prefix}`;
  const displayName = profile?.value.displayName;
  return sendPostPage(reply, {
    platform: 'Bluesky',
    accent: '#1185FE',
    noun: 'Post',
    account: { name: typeof displayName === 'string' && displayName ? displayName : handle, handle: `@${handle}` },
    parts: thread.map((r) => ({
      text: String(r.value.text ?? ''),
      media: mediaOf(r, host),
      createdAt: Date.parse(String(r.value.createdAt)) || r.createdAt,
      url: `${host}/profile/${handle}/post/${r.rkey}`,
    })),
  });
}
