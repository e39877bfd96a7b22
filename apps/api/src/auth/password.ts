import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** scrypt's cost: CPU/memory `N` (a power of two), block size `r`, parallelism `p`. */
export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/**
 * OWASP's minimum for scrypt, in its N=2^14, r=8, p=5 form: the CPU cost of N=2^17, p=1 with an
 * eighth of the memory (16 MiB per hash), so parallel sign-ins cannot exhaust the server's memory.
 */
export const OWASP_SCRYPT: ScryptCost = { N: 2 ** 14, r: 8, p: 5 };

const KEY_LEN = 64;
const SALT_LEN = 16;

function derive(password: string, salt: Buffer, cost: ScryptCost, keyLen: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize('NFKC'),
      salt,
      keyLen,
      { N: cost.N, r: cost.r, p: cost.p, maxmem: 256 * cost.N * cost.r },
      (err, key) => (err ? reject(err) : resolve(key)),
    );
  });
}

/** `scrypt$N$r$p$salt$hash` (salt and hash base64url), so the cost can be raised later. */
export async function hashPassword(password: string, cost: ScryptCost): Promise<string> {
  const salt = randomBytes(SALT_LEN);
  const key = await derive(password, salt, cost, KEY_LEN);
  const { N, r, p } = cost;
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

function parse(stored: string): { cost: ScryptCost; salt: Buffer; hash: Buffer } | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (!N || !r || !p || N > 1 << 20 || r > 32 || p > 16) return null;
  const hash = Buffer.from(parts[5]!, 'base64url');
  if (hash.length < 16) return null;
  return { cost: { N, r, p }, salt: Buffer.from(parts[4]!, 'base64url'), hash };
}

/** Constant-time comparison; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) return false;
  const actual = await derive(password, parsed.salt, parsed.cost, parsed.hash.length);
  return timingSafeEqual(actual, parsed.hash);
}

/** A stored hash made with another cost than `cost` is replaced at the next sign-in. */
export function needsRehash(stored: string, cost: ScryptCost): boolean {
  const parsed = parse(stored);
  return (
    !parsed || parsed.cost.N !== cost.N || parsed.cost.r !== cost.r || parsed.cost.p !== cost.p
  );
}

const dummies = new Map<string, Promise<string>>();

/** A hash to check against when the email is unknown, so both failures take the same time. */
export function dummyHash(cost: ScryptCost): Promise<string> {
  const key = `${cost.N}:${cost.r}:${cost.p}`;
  let d = dummies.get(key);
  if (!d) {
    d = hashPassword(randomBytes(16).toString('hex'), cost);
    dummies.set(key, d);
  }
  return d;
}
