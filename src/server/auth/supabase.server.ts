import { createServerClient, type CookieOptions as SupabaseCookieOptions } from '@supabase/ssr';
import {
  type AuthError,
  isAuthRetryableFetchError,
  isAuthSessionMissingError,
  isAuthWeakPasswordError,
  type JwtPayload,
  type User,
} from '@supabase/supabase-js';
import { AUTH_MESSAGES, MIN_PASSWORD_LENGTH, normalizeEmail } from '@/lib/auth.rules';
import { logger } from '../log.server';
import type { AccountUser, AuthFailureCode, AuthPort, AuthResult, CookieJar, CookieOptions, CurrentSession } from './auth.port';

const log = logger('accounts');

// Supabase's e-mail templates must link to our endpoints with the token hash, because we verify with verifyOtp and
// never hold a PKCE code verifier across requests:
//   Confirm signup:  {{ .RedirectTo }}?token={{ .TokenHash }}   (RedirectTo is <origin>/api/auth/verify)
//   Reset password:  {{ .RedirectTo }}?token={{ .TokenHash }}   (RedirectTo is <origin>/reset-password)
// Both redirect targets must be in the project's Redirect URLs allow list.

export interface SupabaseAuthOptions {
  url: string;
  anonKey: string;
  /** Secure cookies. Defaults to true: browsers accept Secure cookies from http://localhost, so only odd dev hosts need false. */
  secureCookies?: boolean;
}

const UNAVAILABLE = 'Accounts are unavailable right now. Please try again in a moment.';
const OK = { ok: true, value: undefined } as const;
const fail = (code: AuthFailureCode, message: string) => ({ ok: false, error: { code, message } }) as const;

/** A jar for calls that have no browser to answer (sign-up, reset, verify): whatever Supabase stores there is dropped. */
const DISCARD: CookieJar = { getAll: () => [], set: () => {} };

/** Supabase Auth through @supabase/ssr: one server client per call, the session in httpOnly cookies, verified by getClaims. */
export function createSupabaseAuth({ url, anonKey, secureCookies = true }: SupabaseAuthOptions): AuthPort {
  // The name supabase-js would pick by itself; set explicitly so signOut can recognise every cookie the client owns.
  const storageKey = `sb-${new URL(url).hostname.split('.')[0]}-auth-token`;
  const ownsCookie = (name: string) =>
    name === storageKey || name.startsWith(`${storageKey}.`) || name.startsWith(`${storageKey}-`);
  // The session itself: `sb-<ref>-auth-token`, or its chunks `.0`, `.1`, ... when it outgrows one cookie.
  const isSessionCookie = (name: string) =>
    name === storageKey || (name.startsWith(`${storageKey}.`) && /^\d+$/.test(name.slice(storageKey.length + 1)));
  const base: CookieOptions = { httpOnly: true, secure: secureCookies, sameSite: 'lax', path: '/' };

  function clientFor(jar: CookieJar, written?: Set<string>) {
    return createServerClient(url, anonKey, {
      cookieOptions: { name: storageKey, ...base },
      cookies: {
        getAll: () => jar.getAll(),
        // The cache headers @supabase/ssr passes as a second argument cannot travel through our jar; /api answers
        // are already `cache-control: no-store`.
        setAll: (cookies) => {
          for (const { name, value, options } of cookies) {
            written?.add(name);
            jar.set(name, value, toCookieOptions(options));
          }
        },
      },
    });
  }

  /** Revokes the session a throwaway client holds; it never reached a browser, so nobody should be able to use it. */
  async function revoke(client: ReturnType<typeof clientFor>, scope: 'local' | 'global') {
    const { error } = await client.auth.signOut({ scope });
    if (error && !isAuthSessionMissingError(error)) log.error({ err: error.message }, `could not revoke a session (${scope})`);
  }

  return {
    name: 'supabase',

    async signUp(input, { origin }) {
      const { error } = await clientFor(DISCARD).auth.signUp({
        email: normalizeEmail(input.email),
        password: input.password,
        options: {
          data: { first_name: input.firstName.trim(), last_name: input.lastName.trim() },
          emailRedirectTo: `${origin}/api/auth/verify`,
        },
      });
      // Supabase answers an existing address like a new one (an obfuscated user, no e-mail), so success is never
      // inspected. Only when e-mail confirmation is switched off does it say `user_already_exists`; passing that on
      // would tell a stranger the address has an account.
      if (!error || error.code === 'user_already_exists' || error.code === 'email_exists') return OK;
      if (isAuthWeakPasswordError(error) || error.code === 'weak_password') return fail('weak_password', error.message);
      return refusal('sign-up', error);
    },

    async signIn({ email, password }, jar) {
      const { data, error } = await clientFor(jar).auth.signInWithPassword({ email: normalizeEmail(email), password });
      if (error) {
        if (error.code === 'email_not_confirmed') return fail('email_not_confirmed', error.message);
        if (isAuthRetryableFetchError(error) || error.status === 429) return refusal('sign-in', error);
        return fail('invalid_credentials', error.message);
      }
      return { ok: true, value: toAccountUser(data.user, normalizeEmail(email)) };
    },

    async signOut(jar) {
      const written = new Set<string>();
      try {
        // `local`: this browser only. Idle sign-out goes through here too and must not end the shopper's other devices.
        const { error } = await clientFor(jar, written).auth.signOut({ scope: 'local' });
        if (error && !isAuthSessionMissingError(error))
          log.error({ err: error.message }, 'sign-out could not revoke the session');
      } finally {
        // auth-js clears only a session it could parse; a corrupt cookie or a stale PKCE verifier would outlive sign-out.
        for (const { name } of jar.getAll()) {
          if (ownsCookie(name) && !written.has(name)) jar.set(name, '', { ...base, maxAge: 0 });
        }
      }
    },

    async requestPasswordReset(email, { origin }) {
      try {
        const { error } = await clientFor(DISCARD).auth.resetPasswordForEmail(normalizeEmail(email), {
          redirectTo: `${origin}/reset-password`,
        });
        // Every answer Supabase gives is kept from the caller; only an outage is worth a line in the log.
        if (error && isAuthRetryableFetchError(error)) log.error({ err: error.message }, 'password reset request failed');
      } catch (error) {
        log.error({ err: error instanceof Error ? error.message : error }, 'password reset request failed');
      }
    },

    async resendConfirmation(email, { origin }) {
      try {
        const { error } = await clientFor(DISCARD).auth.resend({
          type: 'signup',
          email: normalizeEmail(email),
          options: { emailRedirectTo: `${origin}/api/auth/verify` },
        });
        // As for resets: Supabase's answer (an unknown or confirmed address included) is kept from the caller.
        if (error && isAuthRetryableFetchError(error)) log.error({ err: error.message }, 'confirmation resend failed');
      } catch (error) {
        log.error({ err: error instanceof Error ? error.message : error }, 'confirmation resend failed');
      }
    },

    async resetPassword({ token, password }): Promise<AuthResult> {
      // Checked before the token is spent: Supabase consumes a recovery token at verification, so a rejected
      // password afterwards would cost the shopper their link.
      if (password.length < MIN_PASSWORD_LENGTH) return fail('weak_password', AUTH_MESSAGES.passwordTooShort);
      const client = clientFor(DISCARD);
      const verified = await client.auth.verifyOtp({ token_hash: token, type: 'recovery' });
      if (verified.error) return tokenRefusal('password reset', verified.error);
      if (!verified.data.session) return fail('invalid_token', AUTH_MESSAGES.invalidToken);
      let changed = false;
      try {
        const { error } = await client.auth.updateUser({ password });
        if (error) {
          // weak_password and same_password both carry a message meant for the shopper.
          if (isAuthWeakPasswordError(error) || error.code === 'weak_password' || error.code === 'same_password') {
            return fail('weak_password', error.message);
          }
          return refusal('password reset', error);
        }
        changed = true;
        return OK;
      } finally {
        // After a change every session of the account ends (whoever knew the old password is out); otherwise only
        // the recovery session this call made.
        await revoke(client, changed ? 'global' : 'local');
      }
    },

    // Supabase Auth decides the account's password at sign-up (the first sign-up's, while the address is unconfirmed):
    // the link confirms, and the caller then signs in with the password typed, which opens the account only if it is
    // that password. ADMIN_EMAILS is refused with this adapter for that reason (config.server.ts).
    async verifyEmail({ token }): Promise<AuthResult<{ email: string }>> {
      const client = clientFor(DISCARD);
      const { data, error } = await client.auth.verifyOtp({ token_hash: token, type: 'email' });
      if (error) return tokenRefusal('e-mail verification', error);
      // Supabase signs the shopper in on verification; the caller signs in with the password instead.
      if (data.session) await revoke(client, 'local');
      const email = data.user?.email;
      if (!email) return fail('invalid_token', AUTH_MESSAGES.invalidToken);
      return { ok: true, value: { email } };
    },

    async currentSession(jar): Promise<CurrentSession | null> {
      if (!jar.getAll().some(({ name }) => isSessionCookie(name))) return null;
      try {
        // getClaims verifies the access token's signature against the project's JWKS (refreshing the session first when
        // it is about to expire); the cookie alone proves nothing.
        const { data, error } = await clientFor(jar).auth.getClaims();
        if (error) {
          if (isAuthRetryableFetchError(error)) log.error({ err: error.message }, 'session check failed');
          return null;
        }
        return data ? toCurrentSession(data.claims) : null;
      } catch {
        // auth-js throws rather than returns on some malformed tokens (a header that is not JSON, an unknown alg).
        return null;
      }
    },

    async bearerSession(token) {
      try {
        // The same check as the cookie's, on the token itself: signature against the project's JWKS and expiry (an
        // HS256 token without a key id is sent to Supabase's /user instead). No session is stored or refreshed: the
        // client holds its own refresh token.
        const { data, error } = await clientFor(DISCARD).auth.getClaims(token);
        if (error) {
          if (isAuthRetryableFetchError(error)) log.error({ err: error.message }, 'bearer check failed');
          return null;
        }
        return data ? toCurrentSession(data.claims) : null;
      } catch {
        return null;
      }
    },

    async endBearerSession(token) {
      // GoTrue's /logout takes the session's own access token as its credential (no service key): auth-js offers that
      // call only under `admin`. `local` ends this session alone, as the cookie's idle sign-out does.
      // Our server refuses the session from now on either way (its activity says idle); this ends it at Supabase too.
      try {
        const { error } = await clientFor(DISCARD).auth.admin.signOut(token, 'local');
        if (error && !isAuthSessionMissingError(error) && error.status !== 401 && error.status !== 403)
          log.error({ err: error.message }, 'could not end a bearer session');
      } catch (error) {
        log.error({ err: error instanceof Error ? error.message : error }, 'could not end a bearer session');
      }
    },
  };
}

/** An error the shopper may read as it is, or a generic line (and a log entry) when Supabase could not be reached. */
function refusal(what: string, error: AuthError) {
  if (isAuthRetryableFetchError(error) || (error.status ?? 0) >= 500) {
    log.error({ err: error.message }, `${what} failed`);
    return fail('unavailable', UNAVAILABLE);
  }
  return fail('unavailable', error.message);
}

/** A rejected link is `invalid_token` with our own wording; an outage stays an outage. */
function tokenRefusal(what: string, error: AuthError) {
  if (isAuthRetryableFetchError(error) || (error.status ?? 0) >= 500) return refusal(what, error);
  return fail('invalid_token', AUTH_MESSAGES.invalidToken);
}

function toCookieOptions(options: SupabaseCookieOptions): CookieOptions {
  const out: CookieOptions = {};
  if (options.httpOnly !== undefined) out.httpOnly = options.httpOnly;
  if (options.secure !== undefined) out.secure = options.secure;
  if (options.path !== undefined) out.path = options.path;
  if (options.maxAge !== undefined) out.maxAge = options.maxAge;
  if (options.expires !== undefined) out.expires = options.expires;
  if (options.domain !== undefined) out.domain = options.domain;
  // The cookie package allows `true` for Strict and `false` for no attribute.
  if (options.sameSite === true) out.sameSite = 'strict';
  else if (typeof options.sameSite === 'string') out.sameSite = options.sameSite;
  return out;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);

function toAccountUser(user: User, fallbackEmail: string): AccountUser {
  const meta: Record<string, unknown> = user.user_metadata ?? {};
  return { id: user.id, email: user.email ?? fallbackEmail, firstName: text(meta.first_name), lastName: text(meta.last_name) };
}

/** The verified claims as our session, or null when they are not a signed-in shopper's (anonymous, no e-mail, other role). */
function toCurrentSession(claims: JwtPayload): CurrentSession | null {
  const { sub, email, role } = claims;
  const sessionId: unknown = claims.session_id;
  if (typeof sub !== 'string' || !sub || typeof email !== 'string' || !email || role !== 'authenticated') return null;
  if (typeof sessionId !== 'string' || !sessionId) return null;
  const meta: Record<string, unknown> = claims.user_metadata ?? {};
  return {
    user: { id: sub, email, firstName: text(meta.first_name), lastName: text(meta.last_name) },
    claims: { sub, email, role: 'authenticated' },
    sessionKey: sessionId,
    startedAt: signedInAt(claims.amr),
  };
}

/**
 * When the shopper authenticated: the earliest `amr` timestamp (the token's `iat` moves with every refresh, which the
 * 3-minute check triggers too, so it says nothing about activity). Null when the token carries none.
 */
function signedInAt(amr: unknown): Date | null {
  if (!Array.isArray(amr)) return null;
  const times = amr.flatMap((entry: unknown) => {
    const at = typeof entry === 'object' && entry !== null ? (entry as { timestamp?: unknown }).timestamp : undefined;
    return typeof at === 'number' && Number.isFinite(at) ? [at] : [];
  });
  return times.length > 0 ? new Date(Math.min(...times) * 1000) : null;
}
