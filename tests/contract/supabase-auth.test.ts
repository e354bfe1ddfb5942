import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AUTH_MESSAGES } from '@/lib/auth.rules';
import type { AuthPort, CookieJar, CookieOptions } from '@/server/auth/auth.port';
import { createSupabaseAuth } from '@/server/auth/supabase.server';
import { captureLogs } from '@/server/log.server';
import { type FakeSupabaseAuth, startFakeSupabaseAuth } from '../mocks/supabase-auth';

const ORIGIN = 'https://shop.example';
const PASSWORD = 'correct horse battery';

/** A browser's cookie store: each `request()` is one HTTP request carrying the cookies held at that moment. */
class Browser {
  readonly cookies = new Map<string, { value: string; options: CookieOptions }>();
  readonly set: { name: string; value: string; options: CookieOptions }[] = [];

  request(): CookieJar {
    const sent = [...this.cookies].map(([name, { value }]) => ({ name, value }));
    return {
      getAll: () => sent,
      set: (name, value, options) => {
        this.set.push({ name, value, options });
        if (value === '' || options.maxAge === 0) this.cookies.delete(name);
        else this.cookies.set(name, { value, options });
      },
    };
  }
}

let fake: FakeSupabaseAuth;
let auth: AuthPort;
let storageKey: string;
let n = 0;
const newEmail = () => `shopper${++n}@example.com`;

beforeAll(async () => {
  fake = await startFakeSupabaseAuth();
  auth = createSupabaseAuth({ url: fake.url, anonKey: fake.anonKey });
  storageKey = `sb-${new URL(fake.url).hostname.split('.')[0]}-auth-token`;
});
afterAll(() => fake?.stop());

const sessionCookieNames = (browser: Browser) => [...browser.cookies.keys()].filter((name) => name.startsWith(storageKey));

/** The session @supabase/ssr keeps in its cookie(s): `base64-` + base64url(JSON), split into `.0`, `.1`, ... when large. */
function readSession(browser: Browser): { access_token: string; refresh_token: string; [key: string]: unknown } {
  const single = browser.cookies.get(storageKey)?.value;
  const chunks =
    single ??
    sessionCookieNames(browser)
      .sort()
      .map((name) => browser.cookies.get(name)?.value ?? '')
      .join('');
  return JSON.parse(Buffer.from(chunks.replace(/^base64-/, ''), 'base64url').toString('utf8'));
}

function writeSession(browser: Browser, session: object) {
  for (const name of sessionCookieNames(browser)) browser.cookies.delete(name);
  browser.cookies.set(storageKey, { value: `base64-${Buffer.from(JSON.stringify(session)).toString('base64url')}`, options: {} });
}

const jwtPart = (token: string, i: 0 | 1) => JSON.parse(Buffer.from(token.split('.')[i] ?? '', 'base64url').toString('utf8'));
const b64 = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
const requestsSince = (mark: number) => fake.requests.slice(mark).map((r) => `${r.method} ${r.path}`);

async function signedUpAndConfirmed(email = newEmail()) {
  expect(await auth.signUp({ email, password: PASSWORD, firstName: 'Ada', lastName: 'Lovelace' }, { origin: ORIGIN })).toEqual({
    ok: true,
    value: undefined,
  });
  fake.confirmEmail(email);
  return email;
}

async function signedIn(email: string, password = PASSWORD) {
  const browser = new Browser();
  const result = await auth.signIn({ email, password }, browser.request());
  expect(result.ok).toBe(true);
  return browser;
}

describe('Supabase Auth adapter against a GoTrue-speaking fake', () => {
  it('answers sign-up the same for a new, an unconfirmed and a confirmed e-mail', async () => {
    const email = newEmail();
    const input = { email, password: PASSWORD, firstName: ' Ada ', lastName: 'Lovelace' };
    const first = await auth.signUp(input, { origin: ORIGIN });
    const again = await auth.signUp(input, { origin: ORIGIN });
    fake.confirmEmail(email);
    const confirmed = await auth.signUp({ ...input, email: email.toUpperCase() }, { origin: ORIGIN });
    expect(first).toEqual({ ok: true, value: undefined });
    expect(again).toEqual(first);
    expect(confirmed).toEqual(first);

    const signup = fake.requests.find((r) => r.path === '/auth/v1/signup');
    expect(signup?.query.redirect_to).toBe(`${ORIGIN}/api/auth/verify`);
    expect(signup?.body).toMatchObject({ email, password: PASSWORD, data: { first_name: 'Ada', last_name: 'Lovelace' } });
    expect(signup?.headers.apikey).toBe(fake.anonKey);
  });

  it('passes on a weak-password refusal with Supabase’s message', async () => {
    const result = await auth.signUp({ email: newEmail(), password: 'abc', firstName: 'A', lastName: 'B' }, { origin: ORIGIN });
    expect(result).toEqual({ ok: false, error: { code: 'weak_password', message: 'Password should be at least 6 characters.' } });
  });

  it('refuses sign-in until the e-mail is confirmed, then starts a session in httpOnly cookies', async () => {
    const email = newEmail();
    await auth.signUp({ email, password: PASSWORD, firstName: 'Grace', lastName: 'Hopper' }, { origin: ORIGIN });
    const browser = new Browser();
    expect(await auth.signIn({ email, password: PASSWORD }, browser.request())).toEqual({
      ok: false,
      error: { code: 'email_not_confirmed', message: 'Email not confirmed' },
    });
    expect(browser.cookies.size).toBe(0);

    // The verification link carries the token hash from the e-mail; it works once.
    const token = fake.confirmationTokenFor(email);
    expect(fake.emails.at(-1)).toMatchObject({
      type: 'confirmation',
      to: email,
      tokenHash: token,
      redirectTo: `${ORIGIN}/api/auth/verify`,
    });
    const mark = fake.requests.length;
    expect(await auth.verifyEmail({ token, password: PASSWORD })).toEqual({ ok: true, value: { email } });
    expect(fake.requests.slice(mark).map((r) => `${r.method} ${r.path}?${new URLSearchParams(r.query)}`)).toEqual([
      'POST /auth/v1/verify?',
      // Supabase signed the shopper in on verification; nobody holds that session, so it is revoked.
      'POST /auth/v1/logout?scope=local',
    ]);
    expect(await auth.verifyEmail({ token, password: PASSWORD })).toEqual({
      ok: false,
      error: { code: 'invalid_token', message: AUTH_MESSAGES.invalidToken },
    });

    const result = await auth.signIn({ email: email.toUpperCase(), password: PASSWORD }, browser.request());
    expect(result).toEqual({ ok: true, value: { id: expect.any(String), email, firstName: 'Grace', lastName: 'Hopper' } });
    const names = sessionCookieNames(browser);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      expect(name).toMatch(new RegExp(`^${storageKey}(\\.\\d+)?$`));
      expect(browser.cookies.get(name)?.options).toMatchObject({ httpOnly: true, secure: true, sameSite: 'lax', path: '/' });
      expect(browser.cookies.get(name)?.options.maxAge).toBeGreaterThan(0);
    }
  });

  it('rejects a wrong password with the server’s message and sets no cookie', async () => {
    const email = await signedUpAndConfirmed();
    const browser = new Browser();
    expect(await auth.signIn({ email, password: 'not the password' }, browser.request())).toEqual({
      ok: false,
      error: { code: 'invalid_credentials', message: 'Invalid login credentials' },
    });
    expect(await auth.signIn({ email: 'nobody@example.com', password: PASSWORD }, browser.request())).toEqual({
      ok: false,
      error: { code: 'invalid_credentials', message: 'Invalid login credentials' },
    });
    expect(browser.set).toEqual([]);
  });

  it('reads the session from the cookie, verified against the project’s JWKS', async () => {
    const email = await signedUpAndConfirmed();
    const browser = await signedIn(email);
    const mark = fake.requests.length;
    const session = await auth.currentSession(browser.request());

    const accessToken = readSession(browser).access_token;
    const payload = jwtPart(accessToken, 1);
    expect(session).toEqual({
      user: { id: payload.sub, email, firstName: 'Ada', lastName: 'Lovelace' },
      claims: { sub: payload.sub, email, role: 'authenticated' },
      sessionKey: payload.session_id,
      // When the shopper authenticated, from the token's `amr`: a session with no recorded activity is idle since then.
      startedAt: new Date(payload.amr[0].timestamp * 1000),
    });
    expect(jwtPart(accessToken, 0)).toMatchObject({ alg: 'ES256', kid: expect.any(String) });
    // Verified locally with the published key (fetched once, then cached): no round trip to /user.
    const calls = requestsSince(mark);
    expect(calls.every((call) => call === 'GET /auth/v1/.well-known/jwks.json')).toBe(true);
    expect(fake.requests.some((r) => r.path === '/auth/v1/.well-known/jwks.json')).toBe(true);
  });

  it('finds no session without cookies, and none in a tampered or forged token', async () => {
    const mark = fake.requests.length;
    expect(await auth.currentSession(new Browser().request())).toBeNull();
    expect(requestsSince(mark)).toEqual([]);

    const email = await signedUpAndConfirmed();
    const genuine = readSession(await signedIn(email));
    const [header, payload, signature] = genuine.access_token.split('.');
    const claims = jwtPart(genuine.access_token, 1);
    const forged = (accessToken: string) => {
      const browser = new Browser();
      writeSession(browser, { ...genuine, access_token: accessToken });
      return auth.currentSession(browser.request());
    };

    // Claims changed under the original ES256 signature: the JWKS check fails.
    expect(await forged(`${header}.${b64({ ...claims, email: 'admin@example.com' })}.${signature}`)).toBeNull();
    // HS256 without a key id: auth-js cannot check it locally and asks the server, which refuses it.
    const before = fake.requests.length;
    expect(
      await forged(`${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ ...claims, email: 'admin@example.com' })}.${signature}`),
    ).toBeNull();
    expect(requestsSince(before)).toContain('GET /auth/v1/user');
    // A header that is not JSON makes auth-js throw rather than answer.
    expect(await forged(`${Buffer.from('not json').toString('base64url')}.${payload}.${signature}`)).toBeNull();
    expect(await forged('garbage')).toBeNull();

    // @supabase/ssr warns about a cookie it cannot decode and treats it as absent.
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const broken = new Browser();
    broken.cookies.set(storageKey, { value: 'base64-%%%not-a-session', options: {} });
    expect(await auth.currentSession(broken.request())).toBeNull();
    expect(warned).toHaveBeenCalled();
    warned.mockRestore();
  });

  describe('bearer tokens (clients that are not our pages send the access token)', () => {
    it('reads the session from the access token alone, verified against the JWKS, with no cookie and no round trip', async () => {
      const email = await signedUpAndConfirmed();
      const browser = await signedIn(email);
      const { access_token: token } = readSession(browser);
      const fromCookie = await auth.currentSession(browser.request());
      browser.set.length = 0;
      const mark = fake.requests.length;
      expect(await auth.bearerSession(token)).toEqual(fromCookie);
      expect(requestsSince(mark).every((call) => call === 'GET /auth/v1/.well-known/jwks.json')).toBe(true);
      expect(browser.set).toEqual([]);
    });

    it('finds no session in a tampered, forged, expired, malformed or non-shopper token', async () => {
      const email = await signedUpAndConfirmed();
      const { access_token: token } = readSession(await signedIn(email));
      const [header, payload, signature] = token.split('.');
      const claims = jwtPart(token, 1);

      // Another shopper's id or e-mail under the original signature.
      expect(await auth.bearerSession(`${header}.${b64({ ...claims, sub: crypto.randomUUID() })}.${signature}`)).toBeNull();
      expect(await auth.bearerSession(`${header}.${b64({ ...claims, email: 'admin@example.com' })}.${signature}`)).toBeNull();
      // HS256 without a key id: auth-js asks Supabase's /user, which refuses the signature.
      const before = fake.requests.length;
      expect(await auth.bearerSession(`${b64({ alg: 'HS256', typ: 'JWT' })}.${payload}.${signature}`)).toBeNull();
      expect(requestsSince(before)).toContain('GET /auth/v1/user');
      // alg none, a header that is not JSON, not a JWT at all, the project's public key.
      expect(await auth.bearerSession(`${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`)).toBeNull();
      expect(await auth.bearerSession(`${Buffer.from('not json').toString('base64url')}.${payload}.${signature}`)).toBeNull();
      expect(await auth.bearerSession('garbage')).toBeNull();
      expect(await auth.bearerSession(fake.anonKey)).toBeNull();

      // Expired: signed by the project, but past its `exp`.
      const expiring = await startFakeSupabaseAuth({ accessTokenTtlSeconds: -60 });
      try {
        const port = createSupabaseAuth({ url: expiring.url, anonKey: expiring.anonKey });
        const old = newEmail();
        await port.signUp({ email: old, password: PASSWORD, firstName: 'Ada', lastName: 'Lovelace' }, { origin: ORIGIN });
        expiring.confirmEmail(old);
        const browser = new Browser();
        expect((await port.signIn({ email: old, password: PASSWORD }, browser.request())).ok).toBe(true);
        const stale = readSession(browser).access_token;
        expect(jwtPart(stale, 1).exp * 1000).toBeLessThan(Date.now());
        expect(await port.bearerSession(stale)).toBeNull();
      } finally {
        await expiring.stop();
      }
    });

    it('ends a bearer session at Supabase (local scope) without touching any cookie', async () => {
      const email = await signedUpAndConfirmed();
      const phone = readSession(await signedIn(email));
      const laptop = await signedIn(email);
      const mark = fake.requests.length;
      await auth.endBearerSession(phone.access_token);
      const logout = fake.requests.slice(mark).find((r) => r.path === '/auth/v1/logout');
      expect(logout?.query.scope).toBe('local');
      expect(logout?.headers.authorization).toBe(`Bearer ${phone.access_token}`);
      // The session can no longer be refreshed (nor used with Supabase's /user); the laptop's session lives on.
      const warned = vi.spyOn(console, 'warn').mockImplementation(() => {});
      const refreshed = new Browser();
      writeSession(refreshed, { ...phone, expires_at: Math.floor(Date.now() / 1000) - 10 });
      expect(await auth.currentSession(refreshed.request())).toBeNull();
      warned.mockRestore();
      expect(await auth.currentSession(laptop.request())).not.toBeNull();
      // Ending it twice is not an error.
      await expect(auth.endBearerSession(phone.access_token)).resolves.toBeUndefined();
      // getClaims checks signature and expiry, not revocation: the access token itself stays valid until its `exp`
      // (at most an hour by default), as it does for Supabase's own table API. Our server still refuses it after an
      // idle sign-out, from its recorded activity (see docs/decisions/001-built-in-accounts.md).
      expect(await auth.bearerSession(phone.access_token)).not.toBeNull();
    });
  });

  it('refreshes a session about to expire and writes the new cookies back', async () => {
    const shortLived = await startFakeSupabaseAuth({ accessTokenTtlSeconds: 30 });
    try {
      const port = createSupabaseAuth({ url: shortLived.url, anonKey: shortLived.anonKey });
      const email = newEmail();
      await port.signUp({ email, password: PASSWORD, firstName: 'Ada', lastName: 'Lovelace' }, { origin: ORIGIN });
      shortLived.confirmEmail(email);
      const browser = new Browser();
      await port.signIn({ email, password: PASSWORD }, browser.request());
      const before = readSession(browser);

      browser.set.length = 0;
      const session = await port.currentSession(browser.request());
      expect(shortLived.requests.some((r) => r.path === '/auth/v1/token' && r.query.grant_type === 'refresh_token')).toBe(true);
      const after = readSession(browser);
      expect(after.refresh_token).not.toBe(before.refresh_token);
      expect(browser.set.every((c) => c.options.httpOnly === true)).toBe(true);
      expect(session?.sessionKey).toBe(jwtPart(before.access_token, 1).session_id);
    } finally {
      await shortLived.stop();
    }
  });

  it('signs out by clearing the cookies and revoking the session; a second sign-out is fine', async () => {
    const email = await signedUpAndConfirmed();
    const browser = await signedIn(email);
    const mark = fake.requests.length;
    await auth.signOut(browser.request());
    expect(sessionCookieNames(browser)).toEqual([]);
    expect(browser.set.filter((c) => c.value === '').every((c) => c.options.maxAge === 0)).toBe(true);
    const logout = fake.requests.slice(mark).find((r) => r.path === '/auth/v1/logout');
    expect(logout?.query.scope).toBe('local');
    expect(await auth.currentSession(browser.request())).toBeNull();

    await expect(auth.signOut(browser.request())).resolves.toBeUndefined();
    await expect(auth.signOut(new Browser().request())).resolves.toBeUndefined();

    // A cookie auth-js cannot read (it warns and ignores it) is cleared all the same.
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const corrupt = new Browser();
    corrupt.cookies.set(`${storageKey}.0`, { value: 'base64-%%%', options: {} });
    await auth.signOut(corrupt.request());
    expect(corrupt.cookies.size).toBe(0);
    warned.mockRestore();
  });

  it('resets a password with the recovery token, then signs in with the new one', async () => {
    const email = await signedUpAndConfirmed();
    const otherDevice = await signedIn(email);

    await auth.requestPasswordReset(email, { origin: ORIGIN });
    const recover = fake.requests.findLast((r) => r.path === '/auth/v1/recover');
    expect(recover?.query.redirect_to).toBe(`${ORIGIN}/reset-password`);
    const token = fake.recoveryTokenFor(email);
    expect(fake.emails.at(-1)).toMatchObject({ type: 'recovery', to: email, tokenHash: token });

    // Too short for our rule: refused before the single-use token is spent.
    expect(await auth.resetPassword({ token, password: 'short' })).toEqual({
      ok: false,
      error: { code: 'weak_password', message: AUTH_MESSAGES.passwordTooShort },
    });
    const mark = fake.requests.length;
    expect(await auth.resetPassword({ token, password: 'a brand new secret' })).toEqual({ ok: true, value: undefined });
    expect(requestsSince(mark)).toEqual(['POST /auth/v1/verify', 'PUT /auth/v1/user', 'POST /auth/v1/logout']);
    expect(fake.requests.at(-1)?.query.scope).toBe('global');

    expect((await auth.signIn({ email, password: PASSWORD }, new Browser().request())).ok).toBe(false);
    expect((await auth.signIn({ email, password: 'a brand new secret' }, new Browser().request())).ok).toBe(true);
    // The session from before the reset can no longer be refreshed: every session was ended. (auth-js warns about the
    // dead refresh token and clears the cookies.)
    const warned = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const stale = readSession(otherDevice);
    writeSession(otherDevice, { ...stale, expires_at: Math.floor(Date.now() / 1000) - 10 });
    expect(await auth.currentSession(otherDevice.request())).toBeNull();
    expect(sessionCookieNames(otherDevice)).toEqual([]);
    expect(fake.requests.findLast((r) => r.path === '/auth/v1/token')?.query.grant_type).toBe('refresh_token');
    warned.mockRestore();

    expect(await auth.resetPassword({ token, password: 'another new secret' })).toEqual({
      ok: false,
      error: { code: 'invalid_token', message: AUTH_MESSAGES.invalidToken },
    });
    expect(await auth.resetPassword({ token: 'pkce_not-a-token', password: 'another new secret' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_token' },
    });
    expect(await auth.verifyEmail({ token: 'not-a-token', password: PASSWORD })).toMatchObject({
      ok: false,
      error: { code: 'invalid_token' },
    });
  });

  it('sends the confirmation again for a sign-up still waiting, the link to the shop; any other address the same way', async () => {
    const email = newEmail();
    expect(
      await auth.signUp({ email, password: PASSWORD, firstName: 'Ada', lastName: 'Byron' }, { origin: ORIGIN }),
    ).toMatchObject({
      ok: true,
    });
    await expect(auth.resendConfirmation(email.toUpperCase(), { origin: ORIGIN })).resolves.toBeUndefined();
    const resend = fake.requests.findLast((r) => r.path === '/auth/v1/resend');
    expect(resend?.body).toMatchObject({ email, type: 'signup' });
    expect(resend?.query.redirect_to).toBe(`${ORIGIN}/api/auth/verify`);
    expect(fake.emails.at(-1)).toMatchObject({ type: 'confirmation', to: email });
    expect(fake.emails.filter((e) => e.to === email && e.type === 'confirmation').length).toBe(2);

    // An unknown or a confirmed address: the same quiet answer, and no e-mail.
    const confirmed = await signedUpAndConfirmed();
    const sent = fake.emails.length;
    await expect(auth.resendConfirmation('nobody@example.com', { origin: ORIGIN })).resolves.toBeUndefined();
    await expect(auth.resendConfirmation(confirmed, { origin: ORIGIN })).resolves.toBeUndefined();
    expect(fake.emails.length).toBe(sent);
  });

  it('answers a reset request for an unknown e-mail the same way, and only logs an outage', async () => {
    await expect(auth.requestPasswordReset('nobody@example.com', { origin: ORIGIN })).resolves.toBeUndefined();
    expect(fake.emails.some((e) => e.to === 'nobody@example.com')).toBe(false);

    const gone = await startFakeSupabaseAuth();
    await gone.stop();
    const offline = createSupabaseAuth({ url: gone.url, anonKey: gone.anonKey });
    const logs = captureLogs('error');
    try {
      await expect(offline.requestPasswordReset('someone@example.com', { origin: ORIGIN })).resolves.toBeUndefined();
      expect(logs.records).toEqual([expect.objectContaining({ msg: 'password reset request failed' })]);
      expect(await offline.signIn({ email: 'someone@example.com', password: PASSWORD }, new Browser().request())).toMatchObject({
        ok: false,
        error: { code: 'unavailable' },
      });
    } finally {
      logs.restore();
    }
  });
});
