import { beforeAll, describe, expect, it } from 'vitest';
import { createBuiltInAuth } from '@/server/auth/builtin.server';
import { type LoginLimits, signInWithLimits } from '@/server/auth/login-limits.server';
import { asService } from '@/server/db/roles.server';
import { LIMITS } from '@/server/ratelimit.server';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
const auth = () => createBuiltInAuth({ db, secureCookies: false });
const noCookies = () => ({ getAll: () => [], set: () => undefined });

const OWNER_PASSWORD = 'owner-knows-this-one';
const home = '198.51.100.10';

/** Creates a verified account for the address and returns its e-mail. */
async function verifiedAccount(email: string): Promise<string> {
  await auth().signUp({ email, password: OWNER_PASSWORD, firstName: 'Olive', lastName: 'Owner' }, { origin: 'http://shop.test' });
  await asService(db, (tx) => tx.query(`update auth.users set email_confirmed_at = now() where email = $1`, [email]));
  return email;
}

/** One login attempt as the /api/auth/login route makes it: 'ok', 'wrong' (400) or 'limited' (429). */
async function login(email: string, password: string, address: string, limits: LoginLimits = LIMITS) {
  const attempt = await signInWithLimits(db, limits, { email, address }, () => auth().signIn({ email, password }, noCookies()));
  if (!attempt.ok) {
    expect(attempt.retryAfter).toBeGreaterThan(0);
    return 'limited';
  }
  return attempt.result.ok ? 'ok' : 'wrong';
}

const strangerAddress = (i: number) => `203.0.113.${i}`;

describe(`login limits on ${TEST_DATABASE_KIND}`, () => {
  let owner: string;
  beforeAll(async () => {
    owner = await verifiedAccount('olive@example.com');
    // The owner has signed in from home before, as they do every week.
    expect(await login(owner, OWNER_PASSWORD, home)).toBe('ok');
  }, 30_000);

  it('a stranger guessing from one address is held at 429 after 5 failures, and stays there', async () => {
    for (let i = 0; i < 5; i++) expect(await login(owner, `guess-${i}`, strangerAddress(1))).toBe('wrong');
    for (let i = 0; i < 3; i++) expect(await login(owner, `guess-more-${i}`, strangerAddress(1))).toBe('limited');
    // Even the right password is not tried from there any more: otherwise the 429 would give nothing away.
    expect(await login(owner, OWNER_PASSWORD, strangerAddress(1))).toBe('limited');
  });

  it('a stranger guessing from many addresses slows every new address down, yet the owner signs in from home', async () => {
    const failures: string[] = [];
    for (let address = 2; failures.length < 40 && address < 60; address++) {
      for (let i = 0; i < 5; i++) failures.push(await login(owner, `guess-${address}-${i}`, strangerAddress(address)));
    }
    // Guessing stays slow: only so many wrong passwords per hour reach the account, whatever the number of addresses.
    const tried = failures.filter((f) => f === 'wrong').length;
    expect(tried).toBeLessThanOrEqual(LIMITS.loginFailuresPerAccount.limit);
    expect(failures.at(-1)).toBe('limited');
    expect(await login(owner, 'one-more-guess', strangerAddress(99))).toBe('limited');

    // The owner, from the address they signed in from before, is not locked out by any of it.
    expect(await login(owner, OWNER_PASSWORD, home)).toBe('ok');
    expect(await login(owner, OWNER_PASSWORD, home)).toBe('ok');
  }, 30_000);

  it('successes never count, and a success clears that address’s failures', async () => {
    const email = await verifiedAccount('sam@example.com');
    const cafe = '192.0.2.44';
    for (let i = 0; i < 10; i++) expect(await login(email, OWNER_PASSWORD, cafe)).toBe('ok');
    // Four typos, a success, four more typos: never 429, since the success wiped the first four.
    for (let i = 0; i < 4; i++) expect(await login(email, 'typo-typo', cafe)).toBe('wrong');
    expect(await login(email, OWNER_PASSWORD, cafe)).toBe('ok');
    for (let i = 0; i < 4; i++) expect(await login(email, 'typo-typo', cafe)).toBe('wrong');
    expect(await login(email, OWNER_PASSWORD, cafe)).toBe('ok');

    // The owner's successes from new addresses leave the account's failure budget untouched too.
    for (let i = 0; i < 5; i++) expect(await login(email, OWNER_PASSWORD, `192.0.2.${100 + i}`)).toBe('ok');
    const [counted] = await db.query<{ n: number }>(
      `select coalesce(sum(hits), 0)::int as n from public.rate_limits where bucket like '%' || $1 || '%'`,
      [email],
    );
    expect(counted?.n).toBe(0);
  }, 30_000);

  it('a made-up e-mail cannot spell the owner’s counter for their home address', async () => {
    // Both windows an hour long, so the counters would share a window whatever the time (15-minute windows share
    // the hour's window in the first quarter of each hour).
    const limits: LoginLimits = { ...LIMITS, loginFailuresPerAccountAndAddress: { limit: 5, windowSeconds: 3600 } };
    const email = await verifiedAccount('pat@example.com');
    expect(await login(email, OWNER_PASSWORD, home, limits)).toBe('ok');
    for (let address = 1; address <= 4; address++) {
      for (let i = 0; i < 5; i++) await login(`${email}:${home}`, 'guess', `203.0.113.${150 + address}`, limits);
      for (let i = 0; i < 5; i++) await login(`${email} ${home}`, 'guess', `203.0.113.${160 + address}`, limits);
    }
    expect(await login(email, OWNER_PASSWORD, home, limits)).toBe('ok');
  }, 30_000);

  it('one address trying many accounts is refused after the per-address limit', async () => {
    const limits: LoginLimits = { ...LIMITS, loginPerAddress: { limit: 6, windowSeconds: 300 } };
    const stuffer = '203.0.113.200';
    for (let i = 0; i < 6; i++) expect(await login(`list-${i}@example.com`, 'password1', stuffer, limits)).toBe('wrong');
    expect(await login('list-7@example.com', 'password1', stuffer, limits)).toBe('limited');
  }, 30_000);

  it('remembers where the owner signed in only as a hash', async () => {
    const rows = await db.query<{ key_hash: string }>('select key_hash from public.login_known_addresses');
    expect(rows.length).toBeGreaterThan(0);
    for (const { key_hash } of rows) {
      expect(key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(key_hash).not.toContain(home);
    }
  });
});
