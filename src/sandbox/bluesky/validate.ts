// Lexicon checks a PDS makes on an app.bsky.feed.post record at write time (docs/platforms/bluesky.md "Limits"):
// text ≤ 300 graphemes and ≤ 3,000 UTF-8 bytes, createdAt, langs ≤ 3, facets with byte ranges and known
// features, one embed (images ≤ 4 with alt, video, external link), reply strong refs. Blobs must have been uploaded to
// this repo. Messages follow the real PDS ("… at $.record.text"). The blobs and records a post refers to are read from
// the store first, all at once (`loadReferences`), so the checks themselves stay synchronous.
import type { SandboxStore } from '../framework/store.ts';
import { blobKey, KIND, type BskyBlob, type BskyRecord } from './state.ts';

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
const IMAGE_MAX = 2_000_000; // images lexicon maxSize (2026; "formerly 1 MB")
const VIDEO_MAX = 100_000_000; // ⚠ unverified which cap a given PDS applies (lexicon 300 MB, docs 100 MB / 50 MB)

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What a post record refers to, as the store holds it: this repo's blobs by CID, records by URI (absent: missing). */
export interface PostReferences {
  blobs: Map<string, BskyBlob>;
  records: Map<string, BskyRecord>;
}

/** Reads every blob (of repo `did`) and reply record the post names, in parallel: one round trip's wait. */
export async function loadReferences(store: SandboxStore, did: string, r: Obj): Promise<PostReferences> {
  const cids = new Set<string>();
  const uris = new Set<string>();
  const addBlob = (blob: unknown) => {
    if (isObj(blob) && isObj(blob.ref) && typeof blob.ref.$link === 'string') cids.add(blob.ref.$link);
  };
  const e = r.embed;
  if (isObj(e)) {
    // At most 4 images are valid; a longer list is refused before its blobs matter.
    if (Array.isArray(e.images)) for (const img of e.images.slice(0, 4)) if (isObj(img)) addBlob(img.image);
    addBlob(e.video);
  }
  if (isObj(r.reply))
    for (const ref of [r.reply.root, r.reply.parent]) if (isObj(ref) && typeof ref.uri === 'string') uris.add(ref.uri);
  const [blobs, records] = await Promise.all([
    Promise.all([...cids].map((cid) => store.get<BskyBlob>(KIND.blob, blobKey(did, cid)))),
    Promise.all([...uris].map((uri) => store.get<BskyRecord>(KIND.record, uri))),
  ]);
  return {
    blobs: new Map(blobs.flatMap((b) => (b ? [[b.cid, b] as const] : []))),
    records: new Map(records.flatMap((rec) => (rec ? [[rec.uri, rec] as const] : []))),
  };
}

function blobIssue(
  refs: PostReferences,
  did: string,
  blob: unknown,
  accept: (mime: string) => boolean,
  max: number,
  at: string,
): string | undefined {
  if (!isObj(blob) || blob.$type !== 'blob' || !isObj(blob.ref) || typeof blob.ref.$link !== 'string')
    return `Invalid app.bsky.feed.post record: Expected blob at ${at}`;
  const stored = refs.blobs.get(blob.ref.$link);
  if (!stored || stored.did !== did) return `BlobNotFound:Could not find blob: ${blob.ref.$link}`;
  if (!accept(stored.mimeType)) return `Invalid app.bsky.feed.post record: Wrong blob type ${stored.mimeType} at ${at}`;
  if (stored.size > max) return `Invalid app.bsky.feed.post record: ${at} blob too big (maximum ${max})`;
  return undefined;
}

function strongRef(refs: PostReferences, v: unknown, at: string): string | undefined {
  if (!isObj(v) || typeof v.uri !== 'string' || typeof v.cid !== 'string')
    return `Invalid app.bsky.feed.post record: ${at} must be a strongRef {uri, cid}`;
  // A real PDS only checks the shape (the AppView resolves replies); the simulator also checks that the
  // parent exists with that cid, so an adapter that threads wrongly is caught here.
  const record = refs.records.get(v.uri);
  if (!record || record.cid !== v.cid)
    return `Invalid app.bsky.feed.post record: ${at} does not reference an existing post with that cid`;
  return undefined;
}

/** The first problem with the record, or undefined. `BlobNotFound:` prefixes mean that XRPC error name. */
export function postRecordIssue(refs: PostReferences, did: string, r: Obj): string | undefined {
  const bad = (m: string) => `Invalid app.bsky.feed.post record: ${m}`;
  if (r.$type !== 'app.bsky.feed.post') return bad('Record/$type must be app.bsky.feed.post');
  if (typeof r.text !== 'string') return bad('Record must have the property "text"');
  let count = 0;
  for (const _ of graphemes.segment(r.text)) count++;
  if (count > 300) return bad(`grapheme too big (maximum 300, got ${count}) at $.record.text`);
  const bytes = Buffer.byteLength(r.text);
  if (bytes > 3000) return bad(`string too long (maximum 3000, got ${bytes}) at $.record.text`);
  if (typeof r.createdAt !== 'string' || Number.isNaN(Date.parse(r.createdAt)))
    return bad('Record/createdAt must be an valid atproto datetime');
  if (r.langs !== undefined && (!Array.isArray(r.langs) || r.langs.length > 3))
    return bad('Record/langs must not have more than 3 elements');
  if (r.facets !== undefined) {
    if (!Array.isArray(r.facets)) return bad('Record/facets must be an array');
    for (const [i, f] of r.facets.entries()) {
      const index = isObj(f) && isObj(f.index) ? f.index : undefined;
      if (
        !index ||
        !Number.isInteger(index.byteStart) ||
        !Number.isInteger(index.byteEnd) ||
        (index.byteStart as number) < 0 ||
        (index.byteEnd as number) < (index.byteStart as number)
      )
        return bad(`Record/facets/${i}/index must have integer byteStart ≤ byteEnd`);
      const features = (f as Obj).features;
      if (!Array.isArray(features) || features.length === 0)
        return bad(`Record/facets/${i}/features must be a non-empty array`);
      for (const feature of features) {
        if (!isObj(feature)) return bad(`Record/facets/${i}/features must hold objects`);
        const t = feature.$type;
        if (t === 'app.bsky.richtext.facet#link' && typeof feature.uri === 'string' && URL.canParse(feature.uri))
          continue;
        if (
          t === 'app.bsky.richtext.facet#mention' &&
          typeof feature.did === 'string' &&
          feature.did.startsWith('did:')
        )
          continue;
        if (
          t === 'app.bsky.richtext.facet#tag' &&
          typeof feature.tag === 'string' &&
          feature.tag.length > 0 &&
          Buffer.byteLength(feature.tag) <= 640
        )
          continue;
        return bad(`Record/facets/${i}/features has an invalid or unknown feature`);
      }
    }
  }
  if (r.embed !== undefined) {
    const e = r.embed;
    if (!isObj(e)) return bad('Record/embed must be an object');
    if (e.$type === 'app.bsky.embed.images') {
      if (!Array.isArray(e.images) || e.images.length < 1 || e.images.length > 4)
        return bad('Record/embed/images must have 1 to 4 elements');
      for (const [i, img] of e.images.entries()) {
        if (!isObj(img) || typeof img.alt !== 'string')
          return bad(`Record/embed/images/${i} must have the property "alt"`);
        if (
          img.aspectRatio !== undefined &&
          (!isObj(img.aspectRatio) ||
            !Number.isInteger(img.aspectRatio.width) ||
            !Number.isInteger(img.aspectRatio.height) ||
            (img.aspectRatio.width as number) < 1 ||
            (img.aspectRatio.height as number) < 1)
        )
          return bad(`Record/embed/images/${i}/aspectRatio must have positive integer width and height`);
        const issue = blobIssue(
          refs,
          did,
          img.image,
          (m) => m.startsWith('image/'),
          IMAGE_MAX,
          `$.record.embed.images[${i}].image`,
        );
        if (issue) return issue;
      }
    } else if (e.$type === 'app.bsky.embed.video') {
      const issue = blobIssue(refs, did, e.video, (m) => m === 'video/mp4', VIDEO_MAX, '$.record.embed.video');
      if (issue) return issue;
    } else if (e.$type === 'app.bsky.embed.external') {
      if (
        !isObj(e.external) ||
        typeof e.external.uri !== 'string' ||
        typeof e.external.title !== 'string' ||
        typeof e.external.description !== 'string'
      )
        return bad('Record/embed/external must have uri, title and description');
    } else {
      return bad(`Record/embed has an unsupported $type ${String(e.$type)}`);
    }
  }
  if (r.reply !== undefined) {
    if (!isObj(r.reply)) return bad('Record/reply must be an object');
    return (
      strongRef(refs, r.reply.root, '$.record.reply.root') ?? strongRef(refs, r.reply.parent, '$.record.reply.parent')
    );
  }
  return undefined;
}
