import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthPort } from '@/server/auth/auth.port';
import { createBuiltInAuth, SESSION_COOKIE } from '@/server/auth/builtin.server';
import { activeSession } from '@/server/auth/session.server';
import { tokenHash } from '@/server/auth/tokens.server';
import { openPostgres } from '@/server/db/postgres.server';
import { asService } from '@/server/db/roles.server';
import { browser } from './browser';
import { counting } from './counting';
import { databaseUrl, suiteDatabase, TEST_DATABASE_KIND } from './test-database';

// Two servers on one PostgreSQL database, each with its own connections and its own memory of sessions: what one of
// them (or someone by hand) changes, the other must not go on answering from memory. Only PostgreSQL has other
// writers; the embedded database is locked to one process (tests/db/session-cache.test.ts covers both engines).

const db = suiteDatabase();
const NOTICE_MS = 3_000;

describe.skipIf(TEST_DATABASE_KIND !== 'postgres')('sessions kept in memory by two servers on one PostgreSQL', () => {
  let here: ReturnType<typeof counting>;
  let there: ReturnType<typeof counting>;
  let one: AuthPort;
  let two: AuthPort;
  let n = 0;

  beforeAll(async () => {
    const url = databaseUrl(db);
    if (!url) throw new Error('no URL for the test database');
    here = counting(openPostgres(url, { max: 2 }));
    there = counting(openPostgres(url, { max: 2 }));
    one = createBuiltInAuth({ db: here, secureCookies: false, cacheSessions: true });
    two = createBuiltInAuth({ db: there, secureCookies: false, cacheSessions: true });
  });
  afterAll(async () => {
    await here?.close();
    await there?.close();
  });

  /** A shopper signed in on server one, whose session server two answers from memory. */
  async function keptByTwo() {
    const email = `shared${++n}@example.com`;
    const password = 'lavender-fields';
    await one.signUp({ email, password, firstName: 'Maya', lastName: 'Thompson' }, { origin: 'http://shop.test' });
    await asService(db, (tx) => tx.query(`update auth.users set email_confirmed_at = now() where email = $1`, [email]));
    const jar = browser();
    const login = await one.signIn({ email, password }, jar);
    if (!login.ok) throw new Error(login.error.message);
    await expect.poll(() => there.cost(() => activeSession(there, two, jar, { touch: true })), { timeout: 10_000 }).toBe(0);
    return { jar, email, token: jar.cookies.get(SESSION_COOKIE) ?? '' };
  }

  it('forgets a session the other server ended (logout)', async () => {
    const { jar, token } = await keptByTwo();
    await one.signOut(jar);
    await expect.poll(() => two.bearerSession(token), { timeout: NOTICE_MS }).toBeNull();
  });

  it('forgets a session ended by hand, and an account changed by hand', async () => {
    const first = await keptByTwo();
    await revokeByHand(first.token);
    const second = await keptByTwo();
    await db.query(
      `update auth.users set raw_user_meta_data = raw_user_meta_data || '{"first_name": "Ada"}'::jsonb where email = $1`,
      [second.email],
    );
    await expect.poll(async () => (await two.currentSession(second.jar))?.user.firstName, { timeout: NOTICE_MS }).toBe('Ada');
    await expect.poll(() => two.bearerSession(first.token), { timeout: NOTICE_MS }).toBeNull();
  });

  it('answers nothing from memory while its notifications cannot arrive, and keeps sessions again once they do', async () => {
    const { jar, token } = await keptByTwo();
    // Server two's listening connection is cut: until it listens again, a change it is not told about must not be
    // answered from memory.
    await db.query(
      `select pg_terminate_backend(pid) from pg_stat_activity
       where application_name = 'aurelia-shop-watch' and datname = current_database()`,
    );
    // At once, well before it listens again (it retries after 2 s): nothing answered from memory meanwhile.
    await expect.poll(() => there.cost(() => two.currentSession(jar)), { timeout: 1_500 }).toBe(1);
    await revokeByHand(token);
    expect(await two.bearerSession(token)).toBeNull();
    // Listening again (it retries every 2 s) and its probe back: kept again.
    const { jar: again, token: kept } = await keptByTwo();
    await one.signOut(again);
    await expect.poll(() => two.bearerSession(kept), { timeout: NOTICE_MS }).toBeNull();
  });
});

/** Ends a session as an operator would, in the database, with no server involved. */
async function revokeByHand(token: string) {
  await db.query(`update public.auth_sessions set revoked_at = now() where token_hash = $1`, [tokenHash(token)]);
}
