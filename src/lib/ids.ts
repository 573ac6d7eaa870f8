// Identifiers: prefixed, time-ordered, URL-safe ids for resources (`post_01j…`) and request ids.
import { randomBytes, randomUUID } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
let lastMs = 0;
let lastRandom = 0n;

/**
 * A new id `<prefix>_<26 chars>`: 48 bits of milliseconds then 80 random bits, Crockford base32 (the ULID
 * layout, lower-case). Ids sort by creation time, which keeps B-tree inserts local.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  const bytes = randomBytes(16);
  // Monotonic within a millisecond (as ULIDs may be): the random part of the previous id plus one, so ids made
  // in one transaction (a post's events) sort in the order they were made.
  if (now <= lastMs && lastRandom) {
    now = lastMs;
    lastRandom = (lastRandom + 1n) & ((1n << 80n) - 1n);
    bytes.writeBigUInt64BE(lastRandom >> 16n, 6);
    bytes.writeUInt16BE(Number(lastRandom & 0xffffn), 14);
  } else {
    lastRandom = (bytes.readBigUInt64BE(6) << 16n) | BigInt(bytes.readUInt16BE(14));
  }
  lastMs = now;
  bytes.writeUIntBE(now, 0, 6);
  let out = '';
  // 128 bits → 26 base32 digits (the first digit carries 3 bits).
  let value = BigInt('0x' + bytes.toString('hex'));
  for (let i = 0; i < 26; i++) {
    out = CROCKFORD[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return `${prefix}_${out}`;
}

export function newRequestId(): string {
  return `req_${randomBytes(12).toString('base64url')}`;
}

export function newUuid(): string {
  return randomUUID();
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}
