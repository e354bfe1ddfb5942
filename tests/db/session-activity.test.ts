import { describe, expect, it } from 'vitest';
import { loadCart, storeCart } from '@/features/cart/cart.server';
import { createBuiltInAuth, SESSION_COOKIE } from '@/server/auth/builtin.server';
import { ACTIVITY_GRANULARITY_S, activeSession, IDLE_TIMEOUT_S } from '@/server/auth/session.server';
import { tokenHash } from '@/server/auth/tokens.server';
import { asService, asShopper } from '@/server/db/roles.server';
import { loadCatalogueIndex } from '../unit/load-catalogue';
import { browser } from './browser';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
const auth = () => createBuiltInAuth({ db, secureCookies: false });
let n = 0;

/** A verified shopper, signed in on a fresh browser. */
async function signedIn() {
  const email = `idle${++n}@example.com`;
  await auth().signUp(
    { email, password: 'lavender-fields', firstName: 'Maya', lastName: 'Thompson' },
    { origin: 'http://shop.test' },
  );
  await asService(db, (tx) => tx.query(`update auth.users set email_confirmed_at = now() where email = $1`, [email]));
  const jar = browser();
  const login = await auth().signIn({ email, password: 'lavender-fields' }, jar);
  if (!login.ok) throw new Error(login.error.message);
  const key = `builtin:${tokenHash(jar.cookies.get(SESSION_COOKIE) ?? '')}`;
  return { jar, key };
}

/**
 * Moves the server's view of this session `seconds` into the past, as if that much time had passed since login and
 * since its last recorded activity: the clock the server judges by is the database's own now().
 */
async function age(key: string, seconds: number) {
  await db.query(
    `update public.auth_sessions set created_at = created_at - make_interval(secs => $2) where 'builtin:' || token_hash = $1`,
    [key, seconds],
  );
  await db.query(
    `update public.session_activity set last_seen_at = last_seen_at - make_interval(secs => $2) where session_key = $1`,
    [key, seconds],
  );
}

const lastSeen = async (key: string) =>
  (await db.query<{ at: Date }>(`select last_seen_at as at from public.session_activity where session_key = $1`, [key]))[0]?.at ??
  null;

describe(`idle sign-out on ${TEST_DATABASE_KIND}`, () => {
  it('signs out a session never used after login once 15 minutes have passed', async () => {
    const { jar } = await signedIn();
    // The attack: log in, then nothing. The browser's 3-minute check alone must not keep or revive the session.
    await age(`builtin:${tokenHash(jar.cookies.get(SESSION_COOKIE) ?? '')}`, IDLE_TIMEOUT_S + ACTIVITY_GRANULARITY_S + 1);
    expect(await activeSession(db, auth(), jar, { touch: false })).toBeNull();
    expect(jar.cookies.has(SESSION_COOKIE)).toBe(false);
  });

  it('treats a session with no activity row as active only since it began', async () => {
    const { jar, key } = await signedIn();
    await db.query(`delete from public.session_activity where session_key = $1`, [key]);
    await age(key, IDLE_TIMEOUT_S + ACTIVITY_GRANULARITY_S + 1);
    expect(await activeSession(db, auth(), jar, { touch: true })).toBeNull();
  });

  it('records activity at login', async () => {
    const { key } = await signedIn();
    expect(await lastSeen(key)).not.toBeNull();
  });

  it('never signs out before 15 minutes of real inactivity, and at most 30 s after', async () => {
    const { jar, key } = await signedIn();
    // Activity is recorded at most every ACTIVITY_GRANULARITY_S, so the real last activity may be up to 30 s later than
    // the recorded one: 15 min 29 s after the recorded time the shopper may have been quiet for only 14 min 59 s.
    await age(key, IDLE_TIMEOUT_S + ACTIVITY_GRANULARITY_S - 1);
    expect(await activeSession(db, auth(), jar, { touch: false })).not.toBeNull();
    await age(key, 2);
    expect(await activeSession(db, auth(), jar, { touch: false })).toBeNull();
    expect(await auth().currentSession(jar)).toBeNull();
  });

  it('records activity at most every 30 s, and never for the 3-minute check', async () => {
    const { jar, key } = await signedIn();
    await age(key, ACTIVITY_GRANULARITY_S - 5);
    const recorded = await lastSeen(key);
    expect(await activeSession(db, auth(), jar, { touch: true })).not.toBeNull();
    expect(await lastSeen(key)).toEqual(recorded); // within the granularity: no write

    await age(key, 3 * 60);
    const quiet = await lastSeen(key);
    expect(await activeSession(db, auth(), jar, { touch: false })).not.toBeNull();
    expect(await lastSeen(key)).toEqual(quiet); // the session check is not activity

    expect(await activeSession(db, auth(), jar, { touch: true })).not.toBeNull();
    const [fresh] = await db.query<{ fresh: boolean }>(
      `select last_seen_at > now() - interval '5 seconds' as fresh from public.session_activity where session_key = $1`,
      [key],
    );
    expect(fresh?.fresh).toBe(true);
  });

  it('answers 20 concurrent requests by one shopper without an error, as the cart endpoint runs them', async () => {
    const { jar, key } = await signedIn();
    const catalogue = loadCatalogueIndex();
    // Due for a write, so every request races to record activity at once.
    await age(key, ACTIVITY_GRANULARITY_S + 1);
    const results = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const session = await activeSession(db, auth(), jar, { touch: true });
        if (!session) throw new Error('signed out mid-burst');
        return i % 2 === 0
          ? storeCart(
              db,
              session.claims,
              [{ productId: 1, quantity: 1 + (i % 5), selectedColor: null, selectedSize: null }],
              catalogue,
            )
          : asShopper(db, session.claims, (tx) => loadCart(tx, catalogue));
      }),
    );
    expect(results).toHaveLength(20);
    const rows = await db.query<{ n: number }>(`select count(*)::int as n from public.session_activity where session_key = $1`, [
      key,
    ]);
    expect(rows[0]?.n).toBe(1);
  });
});
