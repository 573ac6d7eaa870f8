// Identifiers: prefixed, time-ordered, URL-safe ids for resources (`post_01j…`) and request ids.
import { randomFillSync, randomUUID } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

// Random bytes come from a pool refilled 4 KiB at a time, as randomUUID does: one randomBytes call per id
// cost about 5 µs, and every request and every publication makes several ids. Each byte is handed out once.
const pool = Buffer.alloc(4096);
let poolUsed = pool.length;

function randomText(bytes: number, encoding: 'hex' | 'base64url'): string {
  if (poolUsed + bytes > pool.length) {
    randomFillSync(pool);
    poolUsed = 0;
  }
  poolUsed += bytes;
  return pool.toString(encoding, poolUsed - bytes, poolUsed);
}

let lastTime = 0;
let lastRandom = 0n;

/**
 * A new id `<prefix>_<26 chars>`: 48 bits of milliseconds then 80 random bits, Crockford base32 (the ULID
 * layout, lower-case). Ids sort by creation time, which keeps B-tree inserts local; within one millisecond a
 * process increments the random part, so ids it makes in a row also sort in the order they were made.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  let random: bigint;
  if (now <= lastTime) {
    random = (lastRandom + 1n) & ((1n << 80n) - 1n);
    now = lastTime;
  } else {
    random = BigInt('0x' + randomText(10, 'hex'));
  }
  lastTime = now;
  lastRandom = random;
  let value = (BigInt(now) << 80n) | random;
  let out = '';
  // 128 bits → 26 base32 digits (the first digit carries 3 bits).
  for (let i = 0; i < 26; i++) {
    out = CROCKFORD[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return `${prefix}_${out}`;
}

export function newRequestId(): string {
  return `req_${randomText(12, 'base64url')}`;
}

export function newUuid(): string {
  return randomUUID();
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}
