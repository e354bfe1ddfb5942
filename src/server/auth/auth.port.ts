import type { ShopperClaims } from '../db/roles.server';

/** A signed-in shopper, in the app's own terms (never a vendor type). */
export interface AccountUser {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
}

export interface CookieOptions {
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: 'lax' | 'strict' | 'none';
  path?: string;
  maxAge?: number;
  expires?: Date;
  domain?: string;
}

/** The request's cookies and a way to set response cookies (what @supabase/ssr calls getAll/setAll). */
export interface CookieJar {
  getAll(): { name: string; value: string }[];
  set(name: string, value: string, options: CookieOptions): void;
}

export type AuthFailureCode = 'invalid_credentials' | 'email_not_confirmed' | 'weak_password' | 'invalid_token' | 'unavailable';

/** A failure the shopper may be told about; `message` is shown as it is. */
export interface AuthFailure {
  code: AuthFailureCode;
  message: string;
}

/** A confirmation link used with a password that is not of a sign-up waiting on it (server-only: islands show it as sent). */
export const CONFIRM_PASSWORD_WRONG =
  'That is not the password this account was created with. Enter the password you chose when you signed up, or reset your password.';

/** The answer to a request for a new confirmation link, whether or not the address has an account waiting. */
export const CONFIRMATION_RESENT = 'If that address has an account waiting for confirmation, we have sent it a new link.';

export type AuthResult<T = undefined> = { ok: true; value: T } | { ok: false; error: AuthFailure };

/** Who is signed in on this request, and the claims their database queries run with. */
export interface CurrentSession {
  user: AccountUser;
  claims: ShopperClaims;
  /** Identifies this session (not the user) for idle tracking; stable for the session's life. */
  sessionKey: string;
  /**
   * When the shopper signed in, if the adapter knows: a session with no recorded activity has been quiet since then.
   * Unknown counts as long ago, so a missing activity row never makes a session look fresh.
   */
  startedAt?: Date | null;
  /** Idle state, when the adapter read it with the session in one query; otherwise the caller reads session_activity. */
  activity?: SessionActivity;
}

/** A session's idle state as the database judged it (its clock, not the web server's). */
export interface SessionActivity {
  /** No activity for the idle timeout: the session must end. */
  idle: boolean;
  /** The recorded activity is old enough that a request should record it again. */
  touchDue: boolean;
}

export interface SignUpInput {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
}

/**
 * Accounts. Two adapters: built-in (the embedded default: users in auth.users, scrypt hashes, opaque session
 * tokens in an httpOnly cookie) and Supabase Auth through @supabase/ssr.
 * Sign-up and reset answer the same way whether or not the e-mail has an account.
 */
export interface AuthPort {
  readonly name: 'built-in' | 'supabase';
  /** Creates the account and sends a verification link; an existing e-mail gets no account and no error. */
  signUp(input: SignUpInput, links: { origin: string }): Promise<AuthResult>;
  /** Checks the password and starts a new session (a new cookie, never a reused one). */
  signIn(input: { email: string; password: string }, jar: CookieJar): Promise<AuthResult<AccountUser>>;
  /** Ends the session, if any: signing out twice is not an error. */
  signOut(jar: CookieJar): Promise<void>;
  /** Sends a single-use, expiring reset link when the e-mail has an account; silent otherwise. */
  requestPasswordReset(email: string, links: { origin: string }): Promise<void>;
  /**
   * Sends a new confirmation link when the e-mail has an account still waiting for one; silent otherwise. The link
   * confirms with the password of a sign-up waiting on the account, as the first one did.
   */
  resendConfirmation(email: string, links: { origin: string }): Promise<void>;
  /** Sets a new password with a reset token; the token is spent, other sessions are ended. */
  resetPassword(input: { token: string; password: string }): Promise<AuthResult>;
  /**
   * Confirms an e-mail address with the token from the verification link and the password its reader chose at sign-up;
   * answers the account's e-mail, so the caller can sign them in with that password. Built-in accounts confirm only
   * when the password is that of a sign-up still waiting, so a link alone never hands the account to whoever signed up
   * with someone else's address. Supabase Auth keeps the password of the first sign-up itself (see docs/operating.md).
   */
  verifyEmail(input: { token: string; password: string }): Promise<AuthResult<{ email: string }>>;
  /**
   * The session on this request, or null. Does not end idle sessions: the caller does (session.server.ts), from
   * `activity` when the adapter read it along with the session, else from session_activity.
   */
  currentSession(jar: CookieJar): Promise<CurrentSession | null>;
  /**
   * The session an `Authorization: Bearer` token stands for, or null, for clients that are not our pages: the built-in
   * session token (what the session cookie holds), or a Supabase access token verified with getClaims. Reads no
   * cookie. Like currentSession, it does not end idle sessions.
   */
  bearerSession(token: string): Promise<CurrentSession | null>;
  /** Ends the session a bearer token stands for (idle sign-out of such a client); no cookie is read or written. */
  endBearerSession(token: string): Promise<void>;
}
