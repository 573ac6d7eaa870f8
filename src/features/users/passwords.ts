// Password hashing with scrypt from node:crypto (memory-hard, no native addon). Each hash records its own
// parameters, so they can be raised later without invalidating stored passwords.
import { randomBytes, randomInt, scrypt, timingSafeEqual } from 'node:crypto';

// OWASP's scrypt row "N=2^15, r=8, p=3": the same work as N=2^17 with p=1 in a quarter of the memory (32 MiB),
// about 0.3 s on one core of a small server. The libuv thread pool runs it, never the event loop.
const COST = { log2N: 15, r: 8, p: 3 };
const KEY_BYTES = 32;
const MAXMEM = 256 * 1024 * 1024;

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 1024;

function derive(password: string, salt: Buffer, cost: typeof COST): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize('NFKC'),
      salt,
      KEY_BYTES,
      { N: 2 ** cost.log2N, r: cost.r, p: cost.p, maxmem: MAXMEM },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

/** `scrypt$ln=15,r=8,p=3$<salt>$<hash>` (base64url). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return `scrypt$ln=${COST.log2N},r=${COST.r},p=${COST.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

function parse(stored: string): { cost: typeof COST; salt: Buffer; key: Buffer } | undefined {
  const match = /^scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(stored);
  if (!match) return undefined;
  const cost = { log2N: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
  if (cost.log2N < 10 || cost.log2N > 20 || cost.r < 1 || cost.p < 1) return undefined;
  return { cost, salt: Buffer.from(match[4]!, 'base64url'), key: Buffer.from(match[5]!, 'base64url') };
}

// Verified against when the account does not exist or has no password, so that answer takes as long as any
// other. A fixed hash of a discarded random password: computing one at first use would make that first answer
// slower, and the result of such a check is ignored anyway.
const STAND_IN = parse('scrypt$ln=15,r=8,p=3$xEEAJw_z712hxUdT3FbAFw$gPkFo0RidSOcAh_n2_4CMqkOaZc-tYxsgk357yXxXz8')!;

/** True when `password` matches `stored`. Takes the same time whether or not `stored` exists. */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parsed = stored ? parse(stored) : undefined;
  const target = parsed ?? STAND_IN;
  const key = await derive(password, target.salt, target.cost);
  return parsed !== undefined && key.length === target.key.length && timingSafeEqual(key, target.key);
}

/** A problem with a new password, in words, or undefined when it is acceptable. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN_LENGTH) return `A password needs at least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `A password may have at most ${PASSWORD_MAX_LENGTH} characters.`;
  if (password.trim() !== password) return 'A password may not start or end with spaces.';
  return undefined;
}

const ALPHABET = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A random password for a new account: four groups of five unambiguous characters (about 115 bits). */
export function generatePassword(): string {
  const groups: string[] = [];
  for (let g = 0; g < 4; g++) {
    let group = '';
    for (let i = 0; i < 5; i++) group += ALPHABET[randomInt(ALPHABET.length)];
    groups.push(group);
  }
  return groups.join('-');
}
