// Record keys Herald chooses for Bluesky posts: TIDs (timestamp identifiers) as the AT Protocol defines them —
// 64 bits (top bit 0, 53 bits of microseconds since the epoch, 10 bits of clock id), in base32-sortable,
// 13 characters. Choosing the key ourselves, before the call, makes a re-send unable to create a second post.
import { randomInt } from 'node:crypto';

const S32 = '234567abcdefghijklmnopqrstuvwxyz';
let last = 0n;

export function newTid(now: Date): string {
  let micros = BigInt(now.getTime()) * 1000n;
  if (micros <= last) micros = last + 1n;
  last = micros;
  let n = (micros << 10n) | BigInt(randomInt(1024));
  let out = '';
  for (let i = 0; i < 13; i++) {
    out = S32[Number(n & 31n)] + out;
    n >>= 5n;
  }
  return out;
}

export function isTid(value: string): boolean {
  return /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/.test(value);
}
