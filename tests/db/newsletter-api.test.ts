import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newsletterLimit, newsletterStatus, newsletterSubscribe } from '@/features/newsletter/newsletter-routes.server';
import type { AuthPort, CookieJar } from '@/server/auth/auth.port';
import { createBuiltInAuth, SESSION_COOKIE } from '@/server/auth/builtin.server';
import { ACTIVITY_GRANULARITY_S, IDLE_TIMEOUT_S } from '@/server/auth/session.server';
import { createSupabaseAuth } from '@/server/auth/supabase.server';
import { tokenHash } from '@/server/auth/tokens.server';
import { asService } from '@/server/db/roles.server';
import { MAX_BODY_BYTES } from '@/server/http.server';
import { LIMITS } from '@/server/ratelimit.server';
import { type FakeSupabaseAuth, startFakeSupabaseAuth } from '../mocks/supabase-auth';
import { browser } from './browser';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

// The spec's newsletter calls (GET /api/newsletter-status, POST /api/newsletter-subscribe) as their routes run them:
// a Request in, a Response out, on a real database with real sessions of the built-in accounts (and one Supabase
// access token, from a GoTrue-speaking fake). The Origin check in front of them is tested in src/server/http.server.test.ts
// and, through the built server, in tests/e2e/newsletter-api.spec.ts.

const db = suiteDatabase();
const builtIn = () => createBuiltInAuth({ db, secureCookies: false });
const SHOP = 'http://shop.test';
const PASSWORD = 'lavender-fields';

interface Shopper {
  id: string;
  email: string;
  /** The session token: what the cookie holds, and what a non-browser client sends as its bearer token. */
  token: string;
  /** A browser holding this shopper's session cookie. */
  cookie: () => ReturnType<typeof browser>;
}

let n = 0;
/** A verified shopper of the built-in accounts, signed in once. */
async function signedIn(name = 'ann'): Promise<Shopper> {
  const email = `${name}.${++n}.${Date.now()}@example.com`;
  await builtIn().signUp({ email, password: PASSWORD, firstName: 'Ann', lastName: 'Lee' }, { origin: SHOP });
  await asService(db, (tx) => tx.query(`update auth.users set email_confirmed_at = now() where email = $1`, [email]));
  const first = browser();
  const login = await builtIn().signIn({ email, password: PASSWORD }, first);
  if (!login.ok) throw new Error(login.error.message);
  const token = first.cookies.get(SESSION_COOKIE) ?? '';
  return { id: login.value.id, email, token, cookie: () => browser({ [SESSION_COOKIE]: token }) };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function statusRequest(query: string, headers: Record<string, string> = {}) {
  return new Request(`${SHOP}/api/newsletter-status${query}`, { headers });
}

function subscribeRequest(body: unknown, headers: Record<string, string> = {}) {
  return new Request(`${SHOP}/api/newsletter-subscribe`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

type Deps = Parameters<typeof newsletterStatus>[0];
const deps = (auth: AuthPort = builtIn(), limits: Deps['limits'] = LIMITS): Deps => ({ db, auth, limits });

/** Status and parsed body of an answer. */
async function answer(response: Response | Promise<Response>) {
  const res = await response;
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

const status = (query: string, headers: Record<string, string> = {}, jar = browser(), d = deps()) =>
  answer(newsletterStatus(d, statusRequest(query, headers), jar));
const subscribeAs = (body: unknown, headers: Record<string, string> = {}, jar = browser(), d = deps()) =>
  answer(newsletterSubscribe(d, subscribeRequest(body, headers), jar));

const subscribed = async (userId: string) =>
  (
    await asService(db, (tx) =>
      tx.query<{ email: string }>('select email from public.newsletter_subscribers where user_id = $1', [userId]),
    )
  ).map((r) => r.email);

/** Moves a built-in session's start and last activity `seconds` into the past (the database's clock decides). */
async function age(token: string, seconds: number) {
  const hash = tokenHash(token);
  await db.query(`update public.auth_sessions set created_at = created_at - make_interval(secs => $2) where token_hash = $1`, [
    hash,
    seconds,
  ]);
  await db.query(
    `update public.session_activity set last_seen_at = last_seen_at - make_interval(secs => $2) where session_key = $1`,
    [`builtin:${hash}`, seconds],
  );
}

// Every shopper costs a scrypt hash and check, which on a busy two-core machine can take seconds.
describe(`the spec's newsletter endpoints on ${TEST_DATABASE_KIND}`, { timeout: 30_000 }, () => {
  describe('GET /api/newsletter-status', () => {
    it('answers {isSubscribed} to the shopper, by bearer token or by cookie', async () => {
      const ann = await signedIn();
      expect(await status(`?userId=${ann.id}`, bearer(ann.token))).toMatchObject({ status: 200, body: { isSubscribed: false } });
      expect((await subscribeAs({ email: ann.email, userId: ann.id }, bearer(ann.token))).status).toBe(201);
      expect(await status(`?userId=${ann.id}`, bearer(ann.token))).toMatchObject({ status: 200, body: { isSubscribed: true } });
      expect(await status(`?userId=${ann.id}`, {}, ann.cookie())).toMatchObject({
        status: 200,
        body: { isSubscribed: true },
      });
    });

    it('refuses a caller without a token or a cookie (401), whatever id they ask about', async () => {
      const ann = await signedIn();
      const guest = await status(`?userId=${ann.id}`);
      expect(guest).toMatchObject({
        status: 401,
        body: { error: 'Please log in to see your newsletter subscription', code: 'unauthenticated' },
      });
      expect(guest.headers.get('www-authenticate')).toBe('Bearer realm="aurelia"');
      expect((await status('')).status).toBe(401);
    });

    it('lets a shopper ask only about themselves: another id is 403, by bearer and by cookie', async () => {
      const ann = await signedIn('ann');
      const ben = await signedIn('ben');
      await subscribeAs({ email: ben.email, userId: ben.id }, bearer(ben.token));
      const asked = await status(`?userId=${ben.id}`, bearer(ann.token));
      expect(asked).toMatchObject({
        status: 403,
        body: { error: 'You can only ask about your own subscription.', code: 'forbidden' },
      });
      expect((await status(`?userId=${ben.id}`, {}, ann.cookie())).status).toBe(403);
      // Not the same id in another spelling, and not a second userId slipped in beside the caller's own.
      expect((await status(`?userId=${ann.id.toUpperCase()}`, bearer(ann.token))).status).toBe(403);
      expect((await status(`?userId=${ann.id}&userId=${ben.id}`, bearer(ann.token))).status).toBe(400);
      expect((await status('', bearer(ann.token))).status).toBe(400);
      expect((await status('?userId=', bearer(ann.token))).status).toBe(403);
    });
  });

  describe('POST /api/newsletter-subscribe', () => {
    it('subscribes the caller with their account e-mail: 201 {error: null}, then 409 with the spec’s text', async () => {
      const ann = await signedIn();
      const first = await subscribeAs({ email: ann.email.toUpperCase(), userId: ann.id }, bearer(ann.token));
      expect(first).toMatchObject({ status: 201, body: { error: null, subscribed: true } });
      expect(await subscribed(ann.id)).toEqual([ann.email]);
      const again = await subscribeAs({ email: ann.email, userId: ann.id }, {}, ann.cookie());
      // The spec's client compares `error` with this text and then says 'You are already subscribed!'.
      expect(again).toMatchObject({
        status: 409,
        body: { error: 'This email is already subscribed', code: 'already_subscribed' },
      });
    });

    it('refuses without a token or a cookie (401, the spec’s wording), and changes nothing', async () => {
      const ann = await signedIn();
      expect(await subscribeAs({ email: ann.email, userId: ann.id })).toMatchObject({
        status: 401,
        body: { error: 'Please log in to subscribe', code: 'unauthenticated' },
      });
      expect(await subscribed(ann.id)).toEqual([]);
    });

    it('refuses to subscribe someone else: A’s token with B’s id is 403, with either e-mail', async () => {
      const ann = await signedIn('ann');
      const ben = await signedIn('ben');
      for (const email of [ben.email, ann.email]) {
        expect(await subscribeAs({ email, userId: ben.id }, bearer(ann.token))).toMatchObject({
          status: 403,
          body: { error: 'You can only subscribe yourself.', code: 'forbidden' },
        });
        expect((await subscribeAs({ email, userId: ben.id }, {}, ann.cookie())).status).toBe(403);
      }
      expect(await subscribed(ben.id)).toEqual([]);
      expect(await subscribed(ann.id)).toEqual([]);
    });

    it('checks the e-mail with the footer form’s rules (src/lib/email.ts) and wording', async () => {
      const ann = await signedIn();
      const refusals = [
        ['', 'Please enter your email address'],
        ['   ', 'Please enter your email address'],
        ['not-an-email', 'Please enter a valid email address'],
        ['josé@example.com', 'Please enter a valid email address'],
        [`${'a'.repeat(65)}@example.com`, 'Please enter a valid email address'],
        ['someone.else@example.com', 'Email mismatch: You can only subscribe with your account email address.'],
      ] as const;
      for (const [email, error] of refusals) {
        expect(await subscribeAs({ email, userId: ann.id }, bearer(ann.token)), email).toMatchObject({
          status: 400,
          body: { error, code: 'invalid_email' },
        });
      }
      expect(await subscribed(ann.id)).toEqual([]);
    });

    it('reads the body as every endpoint does: JSON only, at most 16 KiB, no NUL, both fields', async () => {
      const ann = await signedIn();
      const auth = bearer(ann.token);
      const cases = [
        [subscribeRequest(`email=${ann.email}`, { ...auth, 'content-type': 'application/x-www-form-urlencoded' }), 415],
        [subscribeRequest({ email: ann.email, userId: ann.id, pad: 'x'.repeat(MAX_BODY_BYTES) }, auth), 413],
        [subscribeRequest('{"email":', auth), 400],
        [subscribeRequest({ email: `${ann.email}\u0000`, userId: ann.id }, auth), 400],
        [subscribeRequest({ email: ann.email }, auth), 400],
        [subscribeRequest({ userId: ann.id }, auth), 400],
        [subscribeRequest({ email: ann.email, userId: 42 }, auth), 400],
        [subscribeRequest([ann.email, ann.id], auth), 400],
      ] as const;
      for (const [request, expected] of cases) {
        const res = await answer(newsletterSubscribe(deps(), request, browser()));
        expect(res.status).toBe(expected);
        expect(typeof res.body.error).toBe('string');
        expect(typeof res.body.code).toBe('string');
      }
      expect(await subscribed(ann.id)).toEqual([]);
    });

    it('shares one allowance with /api/newsletter: past it, 429 with Retry-After', async () => {
      const ann = await signedIn();
      const limits = { newsletterPerShopper: { limit: 3, windowSeconds: 600 } };
      // The footer's route counts into the same bucket (one unsubscribe there)…
      expect(await newsletterLimit(db, ann.id, limits)).toBeNull();
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await subscribeAs(
          { email: ann.email, userId: ann.id },
          bearer(ann.token),
          browser(),
          deps(builtIn(), limits),
        );
        statuses.push(res.status);
        if (res.status === 429) {
          expect(res.body).toMatchObject({
            code: 'rate_limited',
            error: 'Too many requests. Please wait a moment and try again.',
          });
          expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        }
      }
      // …so the third request here is the fourth in the window.
      expect(statuses).toEqual([201, 409, 429]);
      // Reading the status is not limited.
      expect((await status(`?userId=${ann.id}`, bearer(ann.token), browser(), deps(builtIn(), limits))).status).toBe(200);
    });
  });

  describe('bearer tokens, as an attacker would send them', () => {
    it('refuses a malformed Authorization header with 401 invalid_token, without falling back to the cookie', async () => {
      const ann = await signedIn();
      const headers = [
        'Bearer',
        'Bearer ',
        `Basic ${Buffer.from(`${ann.email}:${PASSWORD}`).toString('base64')}`,
        `Token ${ann.token}`,
        `Bearer ${ann.token} extra`,
        `Bearer "${ann.token}"`,
        `Bearer ${ann.token},Bearer ${ann.token}`,
        `Bearer ${'a'.repeat(9000)}`,
        '',
      ];
      for (const authorization of headers) {
        // The cookie is valid and the same shopper's: it still does not count once an Authorization header is sent.
        const cookie = ann.cookie();
        const res = await status(`?userId=${ann.id}`, { authorization }, cookie);
        expect(res, authorization.slice(0, 40)).toMatchObject({ status: 401, body: { code: 'invalid_token' } });
        expect(res.headers.get('www-authenticate')).toBe('Bearer realm="aurelia", error="invalid_token"');
        expect([...cookie.options.keys()]).toEqual([]);
        expect((await subscribeAs({ email: ann.email, userId: ann.id }, { authorization }, cookie)).status).toBe(401);
      }
      expect(await subscribed(ann.id)).toEqual([]);
    });

    it('refuses an unknown token, a revoked one (logout) and one past the session’s 7 days', async () => {
      const ann = await signedIn();
      expect((await status(`?userId=${ann.id}`, bearer('x'.repeat(43)))).status).toBe(401);
      // The scheme is case-insensitive (RFC 6750); the token is not.
      expect((await status(`?userId=${ann.id}`, { authorization: `bearer ${ann.token}` })).status).toBe(200);
      expect((await status(`?userId=${ann.id}`, bearer(ann.token.toUpperCase()))).status).toBe(401);

      const revoked = await signedIn();
      await builtIn().signOut(revoked.cookie());
      expect(await subscribeAs({ email: revoked.email, userId: revoked.id }, bearer(revoked.token))).toMatchObject({
        status: 401,
        body: { code: 'invalid_token' },
      });

      const old = await signedIn();
      await age(old.token, 7 * 24 * 3600 + 1);
      expect((await status(`?userId=${old.id}`, bearer(old.token))).status).toBe(401);
      expect(await subscribed(revoked.id)).toEqual([]);
    });

    it('signs an idle bearer session out for good, as the cookie’s, and counts bearer calls as activity', async () => {
      const busy = await signedIn();
      // Active 14 minutes ago: a call keeps the session alive and records the activity.
      await age(busy.token, IDLE_TIMEOUT_S - 60);
      expect((await status(`?userId=${busy.id}`, bearer(busy.token))).status).toBe(200);
      await age(busy.token, 120);
      expect((await status(`?userId=${busy.id}`, bearer(busy.token))).status).toBe(200);

      const quiet = await signedIn();
      await age(quiet.token, IDLE_TIMEOUT_S + ACTIVITY_GRANULARITY_S + 1);
      expect((await status(`?userId=${quiet.id}`, bearer(quiet.token))).status).toBe(401);
      const [row] = await db.query<{ revoked: boolean }>(
        `select revoked_at is not null as revoked from public.auth_sessions where token_hash = $1`,
        [tokenHash(quiet.token)],
      );
      expect(row?.revoked).toBe(true);
      // Revoked, so the cookie holding the same token is signed out too.
      expect((await status(`?userId=${quiet.id}`, {}, quiet.cookie())).status).toBe(401);
    });

    it('lets the bearer win over a cookie of another shopper, and leaves that cookie alone', async () => {
      const ann = await signedIn('ann');
      const ben = await signedIn('ben');
      // Ann's browser cookie, Ben's token: the request is Ben's.
      const annsBrowser = ann.cookie();
      expect((await subscribeAs({ email: ben.email, userId: ben.id }, bearer(ben.token), annsBrowser)).body).toMatchObject({
        error: null,
      });
      expect(await subscribed(ben.id)).toEqual([ben.email]);
      expect(await subscribed(ann.id)).toEqual([]);
      // Ann's id with Ben's token is someone else's id.
      expect((await subscribeAs({ email: ann.email, userId: ann.id }, bearer(ben.token), annsBrowser)).status).toBe(403);
      expect((await status(`?userId=${ann.id}`, bearer(ben.token), annsBrowser)).status).toBe(403);
      // Even an idle cookie session is neither judged nor cleared while the bearer speaks.
      await age(ann.token, IDLE_TIMEOUT_S + ACTIVITY_GRANULARITY_S + 1);
      expect((await status(`?userId=${ben.id}`, bearer(ben.token), annsBrowser)).status).toBe(200);
      expect([...annsBrowser.options.keys()]).toEqual([]);
    });
  });

  describe('with the Supabase adapter', () => {
    let fake: FakeSupabaseAuth;
    beforeAll(async () => {
      fake = await startFakeSupabaseAuth();
    });
    afterAll(() => fake?.stop());

    it('takes a Supabase access token as the bearer (verified with getClaims) and refuses a tampered one', async () => {
      const supabase = createSupabaseAuth({ url: fake.url, anonKey: fake.anonKey });
      const email = `sb.${Date.now()}@example.com`;
      await supabase.signUp({ email, password: PASSWORD, firstName: 'Sam', lastName: 'Bee' }, { origin: SHOP });
      fake.confirmEmail(email);
      const signIn = browser();
      const login = await supabase.signIn({ email, password: PASSWORD }, signIn);
      if (!login.ok) throw new Error(login.error.message);
      // The same account in this database, as Supabase keeps auth.users and public tables in one.
      await db.query('insert into auth.users (id, email) values ($1, $2)', [login.value.id, email]);
      const accessToken = await accessTokenFrom(supabase, signIn);
      const d = deps(supabase);

      expect(await status(`?userId=${login.value.id}`, bearer(accessToken), browser(), d)).toMatchObject({
        status: 200,
        body: { isSubscribed: false },
      });
      expect(await subscribeAs({ email, userId: login.value.id }, bearer(accessToken), browser(), d)).toMatchObject({
        status: 201,
        body: { error: null },
      });
      expect(await subscribed(login.value.id)).toEqual([email]);

      const [header, payload, signature] = accessToken.split('.');
      const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8'));
      const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: crypto.randomUUID() })).toString('base64url')}.${signature}`;
      expect((await status(`?userId=${claims.sub}`, bearer(forged), browser(), d)).status).toBe(401);
      expect((await status(`?userId=${claims.sub}`, bearer('not.a.jwt'), browser(), d)).status).toBe(401);
    });
  });
});

/** The access token @supabase/ssr stored in the session cookie: what a client would send as its bearer token. */
async function accessTokenFrom(auth: AuthPort, jar: CookieJar): Promise<string> {
  const cookies = jar.getAll().filter((c) => c.name.includes('-auth-token'));
  const joined = cookies
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((c) => c.value)
    .join('');
  const session = JSON.parse(Buffer.from(joined.replace(/^base64-/, ''), 'base64url').toString('utf8'));
  expect(await auth.currentSession(jar)).not.toBeNull();
  return session.access_token as string;
}
