// State of the Bluesky simulator (a PDS), kept in the sandbox store so that it survives a restart and every API
// node serves the same repos: accounts, records, blob metadata (the bytes are store blobs, content-addressed by
// CID) and spent refresh tokens; the identifiers the AT Protocol uses — CIDs (CIDv1, base32, sha-256) and TIDs
// (time-ordered record keys, from a store counter so none repeats); and the context every route handler is given.
import { createHash } from 'node:crypto';
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';

export interface BskyAccount {
  did: string;
  handle: string;
  email: string;
  password: string | null;
  /** App passwords by name. */
  appPasswords: Record<string, string>;
}

export interface BskyRecord {
  uri: string;
  cid: string;
  did: string;
  collection: string;
  rkey: string;
  value: Record<string, unknown>;
  createdAt: number;
}

export interface BskyBlob {
  cid: string;
  did: string;
  mimeType: string;
  size: number;
}

/**
 * The store's kinds. `account` by DID (a handle's DID is `didFor(handle)`, so no handle index is needed),
 * `record` by AT URI with the repo's DID as owner, `blob` by `blobKey` (a blob belongs to the repo that uploaded it;
 * its bytes are the store blob named by the CID, shared by repos that upload the same bytes), `spent-refresh` by jti,
 * `thread-part` by a reply's AT URI with `threadKey` as owner (a post's page reads its thread, not its repo).
 */
export const KIND = {
  account: 'account',
  record: 'record',
  blob: 'blob',
  spentRefresh: 'spent-refresh',
  threadPart: 'thread-part',
} as const;

export const blobKey = (did: string, cid: string) => `${did} ${cid}`;

/** A repo's reply under one thread root, listed by `threadKey`. */
export interface BskyThreadPart {
  uri: string;
}

/** The owner of a repo's replies under one root: what a post's page lists. */
export const threadKey = (did: string, rootUri: string) => `${did} ${rootUri}`;

/** What every route handler works with: the kit (its store holds the state), the XRPC error body, the mount. */
export interface BskyContext {
  kit: SimulatorKit;
  errorReply: PlatformSimulator['errorReply'];
  /** Where the simulator is mounted (`/sandbox/bluesky` in Herald), for the URLs it hands out. */
  prefix: string;
}

const B32 = 'abcdefghijklmnopqrstuvwxyz234567';
function base32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  return out;
}

/** CIDv1 in base32: `raw` (0x55) for blobs, `dag-cbor` (0x71) for records. */
export function cidOf(data: Buffer | string, codec: 'raw' | 'dag-cbor'): string {
  const digest = createHash('sha256').update(data).digest();
  return `b${base32(Buffer.concat([Buffer.from([0x01, codec === 'raw' ? 0x55 : 0x71, 0x12, 0x20]), digest]))}`;
}

export function didFor(handle: string): string {
  return `did:plc:${base32(createHash('sha256').update(handle.toLowerCase()).digest()).slice(0, 24)}`;
}

const S32 = '234567abcdefghijklmnopqrstuvwxyz';
/**
 * A TID: 53 bits of microseconds and 10 bits of clock id, base32-sortable, 13 characters. The sub-millisecond
 * microseconds and the clock id come from a store counter, so no two TIDs are alike across restarts and API nodes
 * (unless a million are made in one millisecond).
 */
export async function newTid(kit: SimulatorKit): Promise<string> {
  const n = await kit.store.next('tid');
  const micros = BigInt(kit.now()) * 1000n + (n % 1000n);
  let value = (micros << 10n) | ((n / 1000n) % 1024n);
  let out = '';
  for (let i = 0; i < 13; i++) {
    out = S32[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

/** Record-key syntax (atproto "Record Key"): 1–512 of A-Za-z0-9 . - _ : ~, not "." or "..". */
export function isRecordKey(key: string): boolean {
  return /^[A-Za-z0-9.\-_:~]{1,512}$/.test(key) && key !== '.' && key !== '..';
}

export function xrpcError(error: string, message: string): { error: string; message: string } {
  return { error, message };
}
