import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/**
 * scrypt with N=2^15, r=8, p=1 (32 MiB and about a tenth of a second): the parameters travel in the stored hash, so
 * they can be raised later without breaking existing passwords.
 */
export const SCRYPT_PARAMS: Readonly<ScryptParams> = { N: 2 ** 15, r: 8, p: 1 };
/** The cost of new hashes. */
let cost: Readonly<ScryptParams> = SCRYPT_PARAMS;

/**
 * New hashes in this process at N=2^10, a thirty-second of the work: for the database and API suites only, which hash
 * hundreds of passwords (at the shop's cost a sixth of their CPU). Called by code, never by configuration: nothing in
 * src/ or scripts/ calls it (tests/unit/import-rules.test.ts), so no server or script can be started with it. A cheap
 * hash still names its cost, which is what verifying reads.
 */
export function lowerPasswordCostForTests(): void {
  cost = { N: 2 ** 10, r: 8, p: 1 };
}

const KEY_LENGTH = 64;

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 128 * params.N * params.r * 2 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** A self-describing scrypt hash: scrypt$N$r$p$salt$key (base64url). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether the password matches the stored hash, compared in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

// A hash of nothing in particular, checked when an e-mail has no account, so a login takes as long either way.
let decoy: Promise<string> | undefined;
/** Spends the same time as a real check, for an e-mail with no account. */
export async function verifyDecoy(password: string): Promise<false> {
  decoy ??= hashPassword(randomBytes(12).toString('hex'));
  await verifyPassword(password, await decoy);
  return false;
}
