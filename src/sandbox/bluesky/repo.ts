// The repository side of the Bluesky simulator: uploadBlob, createRecord (client-chosen record keys: a second
// create at the same key is a 500, as on a real PDS — checked against @atproto/dev-env), getRecord (400
// RecordNotFound), listRecords, deleteRecord; the repo-write rate limit in points; a web page per post.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseBody } from '../framework/body.ts';
import { applyFault, windowHeaders } from '../framework/simulator.ts';
import { sniff } from '../framework/sniff.ts';
import { bearer } from './auth.ts';
import { cidOf, isRecordKey, newTid, xrpcError, type BskyContext, type BskyRecord } from './state.ts';
import { postRecordIssue } from './validate.ts';

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

export function registerBskyRepo(app: FastifyInstance, ctx: BskyContext): void {
  app.post('/xrpc/com.atproto.repo.uploadBlob', (request, reply) => uploadBlob(ctx, request, reply));
  app.post('/xrpc/com.atproto.repo.createRecord', (request, reply) => createRecord(ctx, request, reply));
  app.get<{ Querystring: RecordQuery }>('/xrpc/com.atproto.repo.getRecord', (request, reply) =>
    getRecord(ctx, request, reply),
  );
  app.get<{ Querystring: ListQuery }>('/xrpc/com.atproto.repo.listRecords', (request) => listRecords(ctx, request));
  app.post('/xrpc/com.atproto.repo.deleteRecord', (request, reply) => deleteRecord(ctx, request, reply));
  // Sandbox URLs of posts point here (the real ones are https://bsky.app/profile/<handle>/post/<rkey>).
  app.get<{ Params: { actor: string; rkey: string } }>('/profile/:actor/post/:rkey', (request, reply) =>
    postPage(ctx, request, reply),
  );
}

async function uploadBlob(ctx: BskyContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit, state, errorReply } = ctx;
  const account = bearer(kit, state, request, reply);
  if (!account) return reply;
  const window = kit.windows.hit(`blob:${account.did}`, kit.limit(1000), 24 * 3600_000);
  reply.headers(windowHeaders(window, 'ietf'));
  if (!window.allowed) return reply.code(429).send(xrpcError('RateLimitExceeded', 'Rate Limit Exceeded'));
  const fault = kit.faults.take('upload_media', account.did);
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
  state.blobs.set(cid, { cid, did: account.did, mimeType, size: data.length });
  return { blob: { $type: 'blob', ref: { $link: cid }, mimeType, size: data.length } };
}

/** Writes a record at a client-chosen or new key; app.bsky.feed.post records get the lexicon checks. */
async function createRecord(ctx: BskyContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit, state, errorReply } = ctx;
  const account = bearer(kit, state, request, reply);
  if (!account) return reply;
  // 5,000 points per hour, a create costs 3 (docs/platforms/bluesky.md "Rate limits").
  const window = kit.windows.hit(`writes:${account.did}`, kit.limit(1666), 3600_000);
  reply.headers(windowHeaders(window, 'ietf'));
  if (!window.allowed) return reply.code(429).send(xrpcError('RateLimitExceeded', 'Rate Limit Exceeded'));
  const applied = applyFault(kit, { errorReply }, kit.faults.take('create_post', account.did), request, reply, 'ietf');
  if (applied === 'sent') return reply;
  const { fields, valid } = parseBody(request.headers['content-type'], request.body);
  if (!valid) return reply.code(400).send(xrpcError('InvalidRequest', 'Request body must be JSON'));
  if (fields.repo !== account.did && fields.repo !== account.handle)
    return reply.code(400).send(xrpcError('InvalidRequest', 'Invalid repo'));
  if (
    typeof fields.collection !== 'string' ||
    !/^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+\.[A-Za-z]+$/.test(fields.collection)
  )
    return reply.code(400).send(xrpcError('InvalidRequest', 'Invalid collection'));
  const rkey = fields.rkey === undefined ? newTid(kit.now()) : String(fields.rkey);
  if (!isRecordKey(rkey))
    return reply.code(400).send(xrpcError('InvalidRequest', `Invalid record key (got "${rkey}") at $.rkey`));
  const record = fields.record as Record<string, unknown> | undefined;
  if (!record || typeof record !== 'object')
    return reply.code(400).send(xrpcError('InvalidRequest', 'Input must have the property "record"'));
  if (fields.collection === 'app.bsky.feed.post') {
    const issue = postRecordIssue(state, account.did, record);
    if (issue?.startsWith('BlobNotFound:'))
      return reply.code(400).send(xrpcError('BlobNotFound', issue.slice('BlobNotFound:'.length)));
    if (issue) return reply.code(400).send(xrpcError('InvalidRequest', issue));
  }
  const uri = `at://${account.did}/${fields.collection}/${rkey}`;
  if (state.records.has(uri)) return reply.code(500).send(xrpcError('InternalServerError', 'Internal Server Error'));
  const cid = cidOf(JSON.stringify(record), 'dag-cbor');
  const stored: BskyRecord = {
    uri,
    cid,
    did: account.did,
    collection: fields.collection,
    rkey,
    value: record,
    createdAt: kit.now(),
  };
  state.records.set(uri, stored);
  if (applied === 'drop') return kit.dropConnection(request, reply);
  return {
    uri,
    cid,
    commit: { cid: cidOf(`${uri}${cid}`, 'dag-cbor'), rev: newTid(kit.now()) },
    validationStatus: 'valid',
  };
}

async function getRecord(ctx: BskyContext, request: FastifyRequest<{ Querystring: RecordQuery }>, reply: FastifyReply) {
  const { kit, state, errorReply } = ctx;
  const q = request.query;
  const did = q.repo?.startsWith('did:') ? q.repo : state.handles.get(q.repo ?? '');
  const uri = `at://${did}/${q.collection}/${q.rkey}`;
  const record = state.records.get(uri);
  if (!record) return reply.code(400).send(xrpcError('RecordNotFound', `Could not locate record: ${uri}`));
  if (applyFault(kit, { errorReply }, kit.faults.take('lookup', record.did), request, reply, 'ietf') === 'sent')
    return reply;
  return { uri, cid: record.cid, value: record.value };
}

/** A repo's records of one collection, newest key first, paged by `cursor`. */
async function listRecords(ctx: BskyContext, request: FastifyRequest<{ Querystring: ListQuery }>) {
  const { state } = ctx;
  const q = request.query;
  const did = q.repo?.startsWith('did:') ? q.repo : state.handles.get(q.repo ?? '');
  const limit = Math.min(100, Math.max(1, Number(q.limit ?? 50) || 50));
  const all = [...state.records.values()]
    .filter((r) => r.did === did && r.collection === q.collection)
    .sort((a, b) => (a.rkey < b.rkey ? 1 : -1));
  const start = q.cursor ? all.findIndex((r) => r.rkey < q.cursor!) : 0;
  const page = start < 0 ? [] : all.slice(start, start + limit);
  return {
    records: page.map((r) => ({ uri: r.uri, cid: r.cid, value: r.value })),
    ...(page.length === limit ? { cursor: page.at(-1)!.rkey } : {}),
  };
}

async function deleteRecord(ctx: BskyContext, request: FastifyRequest, reply: FastifyReply) {
  const { kit, state } = ctx;
  const account = bearer(kit, state, request, reply);
  if (!account) return reply;
  const { fields } = parseBody(request.headers['content-type'], request.body);
  state.records.delete(`at://${account.did}/${String(fields.collection)}/${String(fields.rkey)}`);
  return { commit: { cid: cidOf(String(kit.now()), 'dag-cbor'), rev: newTid(kit.now()) } };
}

async function postPage(
  ctx: BskyContext,
  request: FastifyRequest<{ Params: { actor: string; rkey: string } }>,
  reply: FastifyReply,
) {
  const { state } = ctx;
  const { actor, rkey } = request.params;
  const did = actor.startsWith('did:') ? actor : state.handles.get(actor);
  const record = state.records.get(`at://${did}/app.bsky.feed.post/${rkey}`);
  if (!record)
    return reply
      .code(404)
      .type('text/plain')
      .send('This post does not exist in the sandbox (it may have been deleted, or the sandbox restarted).');
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return reply
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><meta charset="utf-8"><title>Sandbox Bluesky post</title><p><b>@${esc(actor)}</b> (Herald sandbox)</p><p>${esc(String(record.value.text))}</p>`,
    );
}
