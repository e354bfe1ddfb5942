import { beforeAll, describe, expect, it } from 'vitest';
import type { AuthPort } from '@/server/auth/auth.port';
import { createBuiltInAuth, SESSION_COOKIE } from '@/server/auth/builtin.server';
import { ACTIVITY_GRANULARITY_S, activeSession } from '@/server/auth/session.server';
import { tokenHash } from '@/server/auth/tokens.server';
import { asService } from '@/server/db/roles.server';
import { browser } from './browser';
import { counting } from './counting';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
/** The suite's database, counting the transactions the adapter opens. */
const counted = counting(db);
/** One adapter for the whole file, as the server keeps one: its cache lives as long as it does. */
let auth: AuthPort;
let n = 0;
beforeAll(async () => {
  auth = createBuiltInAuth({ db: counted, secureCookies: false, cacheSessions: true });
  // On PostgreSQL, sessions are kept only once the database's notifications are known to arrive.
  const { jar } = await signedIn();
  for (const started = Date.now(); (await cost(() => auth.currentSession(jar))) > 0; ) {
    if (Date.now() - started > 10_000) throw new Error('sessions are not kept in memory');
    await new Promise((pause) => setTimeout(pause, 50));
  }
});

async function signedIn(jar = browser()) {
  const email = `cached${++n}@example.com`;
  const password = 'lavender-fields';
  await auth.signUp({ email, password, firstName: 'Maya', lastName: 'Thompson' }, { origin: 'http://shop.test' });
  await asService(db, (tx) => tx.query(`update auth.users set email_confirmed_at = now() where email = $1`, [email]));
  const login = await auth.signIn({ email, password }, jar);
  if (!login.ok) throw new Error(login.error.message);
  return { jar, email, password, token: jar.cookies.get(SESSION_COOKIE) ?? '' };
}

const cost = (fn: () => Promise<unknown>) => counted.cost(fn);

const resetToken = async (email: string) => {
  await auth.requestPasswordReset(email, { origin: 'http://shop.test' });
  const [row] = await asService(db, (tx) =>
    tx.query<{ payload: { text: string } }>(
      `select payload from public.outbox where kind = 'email' and payload ->> 'to' = $1 order by id desc limit 1`,
      [email],
    ),
  );
  return /token=([\w-]+)/.exec(row?.payload.text ?? '')?.[1] ?? '';
};

describe(`built-in sessions kept in memory (the embedded database's one process) on ${TEST_DATABASE_KIND}`, () => {
  it('answers a signed-in request from memory after the first, without a query', async () => {
    const { jar } = await signedIn();
    expect(await cost(() => activeSession(counted, auth, jar, { touch: true }))).toBe(1);
    expect(await cost(() => activeSession(counted, auth, jar, { touch: true }))).toBe(0);
    expect((await auth.currentSession(jar))?.user.firstName).toBe('Maya');
  });

  it('ends a session at logout at once, on every client holding its token', async () => {
    const { jar, token } = await signedIn();
    expect(await auth.bearerSession(token)).not.toBeNull();
    await auth.signOut(jar);
    expect(await auth.bearerSession(token)).toBeNull();
  });

  it('ends every session of the account at a password reset at once', async () => {
    const phone = await signedIn();
    const laptop = browser();
    expect((await auth.signIn({ email: phone.email, password: phone.password }, laptop)).ok).toBe(true);
    expect(await auth.currentSession(phone.jar)).not.toBeNull();
    expect(await auth.currentSession(laptop)).not.toBeNull();
    expect((await auth.resetPassword({ token: await resetToken(phone.email), password: 'new-lavender-7' })).ok).toBe(true);
    expect(await auth.currentSession(phone.jar)).toBeNull();
    expect(await auth.currentSession(laptop)).toBeNull();
  });

  it('ends the previous session of a browser that logs in again', async () => {
    const { jar, email, password, token } = await signedIn();
    expect(await auth.bearerSession(token)).not.toBeNull();
    expect((await auth.signIn({ email, password }, jar)).ok).toBe(true);
    expect(await auth.bearerSession(token)).toBeNull();
  });

  it('asks the database again once an activity write is due, so idle sign-out stays exact', async () => {
    const { jar, token } = await signedIn();
    const key = `builtin:${tokenHash(token)}`;
    await db.query(
      `update public.session_activity set last_seen_at = last_seen_at - make_interval(secs => $2) where session_key = $1`,
      [key, ACTIVITY_GRANULARITY_S + 1],
    );
    // Due for a write: not kept, so the next request reads (and records) again.
    expect(await cost(() => activeSession(counted, auth, jar, { touch: false }))).toBe(1);
    expect(await cost(() => activeSession(counted, auth, jar, { touch: true }))).toBe(2);
    // Recorded just now: kept until the next write is due.
    expect(await cost(() => activeSession(counted, auth, jar, { touch: true }))).toBe(1);
    expect(await cost(() => activeSession(counted, auth, jar, { touch: true }))).toBe(0);
    expect(await auth.bearerSession(token)).not.toBeNull();
  });
});
