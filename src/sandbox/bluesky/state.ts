// In-memory state of the Bluesky simulator (a PDS): accounts, records, blobs; and the identifiers the AT
// Protocol uses — CIDs (CIDv1, base32, sha-256) and TIDs (time-ordered record keys); and the context every route
// handler is given.
import { createHash, randomBytes } from 'node:crypto';
import type { PlatformSimulator, SimulatorKit } from '../framework/simulator.ts';

export interface BskyAccount {
  did: string;
  handle: string;
  email: string;
  password: string | null;
  appPasswords: Map<string, string>;
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

export interface BskyState {
  accounts: Map<string, BskyAccount>;
  handles: Map<string, string>;
  records: Map<string, BskyRecord>;
  blobs: Map<string, BskyBlob>;
  spentRefresh: Set<string>;
}

/** What every route handler works with: the kit, the live state (reset swaps it) and the XRPC error body. */
export interface BskyContext {
  kit: SimulatorKit;
  state: BskyState;
  errorReply: PlatformSimulator['errorReply'];
}

export function createBskyState(): BskyState {
  return { accounts: new Map(), handles: new Map(), records: new Map(), blobs: new Map(), spentRefresh: new Set() };
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
let lastMicros = 0;
/** A TID: 53 bits of microseconds and 10 bits of clock id, base32-sortable, 13 characters. */
export function newTid(nowMs: number): string {
  let micros = nowMs * 1000;
  if (micros <= lastMicros) micros = lastMicros + 1;
  lastMicros = micros;
  let n = (BigInt(micros) << 10n) | BigInt(randomBytes(2).readUInt16BE(0) & 1023);
  let out = '';
  for (let i = 0; i < 13; i++) {
    out = S32[Number(n & 31n)] + out;
    n >>= 5n;
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
