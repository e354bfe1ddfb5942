import { AUTH_MESSAGES, MIN_PASSWORD_LENGTH, normalizeEmail } from '@/lib/auth.rules';
import type { Database, Sql } from '../db/database.server';
import { asService, serviceStatement } from '../db/roles.server';
import { logger } from '../log.server';
import type { MailMessage } from '../mail/mail.port';
import { queueJob } from '../outbox/jobs.server';
import {
  type AccountUser,
  type AuthPort,
  type AuthResult,
  CONFIRM_PASSWORD_WRONG,
  type CookieJar,
  type CurrentSession,
} from './auth.port';
import { accountExistsEmail, resetEmail, verificationEmail } from './emails.server';
import { hashPassword, verifyDecoy, verifyPassword } from './password.server';
import { ACTIVITY_GRANULARITY_S, ACTIVITY_PARAMS, activitySql, recordActivity } from './session.server';
import { createSessionCache } from './session-cache.server';
import { newToken, tokenHash } from './tokens.server';

const log = logger('accounts');

export const SESSION_COOKIE = 'aurelia_session';
const SESSION_MAX_AGE_S = 7 * 24 * 60 * 60;
const VERIFY_TTL = '24 hours';
const RESET_TTL = '1 hour';

interface UserRow {
  id: string;
  email: string;
  encrypted_password: string | null;
  email_confirmed_at: Date | null;
  first_name: string | null;
  last_name: string | null;
}

/** The auth.users columns an account needs, from the table aliased `u`. */
const USER_COLUMNS = `u.id, u.email, u.encrypted_password, u.email_confirmed_at,
  u.raw_user_meta_data ->> 'first_name' as first_name, u.raw_user_meta_data ->> 'last_name' as last_name`;

type TokenPurpose = 'verify_email' | 'reset_password';

/** What one sign-up asked for, kept with its verification link until the link is used. */
interface PendingSignUp {
  hash: string;
  firstName: string;
  lastName: string;
}

const toUser = (r: UserRow): AccountUser => ({ id: r.id, email: r.email, firstName: r.first_name, lastName: r.last_name });

const fail = (code: 'invalid_credentials' | 'email_not_confirmed' | 'weak_password' | 'invalid_token', message: string) =>
  ({ ok: false, error: { code, message } }) as const;
const OK = { ok: true, value: undefined } as const;

/** Where the database tells every server of a write to sessions or accounts (migration 20261126090000). */
export const AUTH_CHANGES_CHANNEL = 'aurelia_auth_changes';

export interface BuiltInAuthOptions {
  db: Database;
  /** Secure cookies (production over https). */
  secureCookies: boolean;
  /** Called after an e-mail was queued, so the outbox worker can send it now instead of at its next tick. */
  onMailQueued?: () => void;
  /**
   * Keep sessions in memory between their activity writes (see session-cache.server.ts). On a database other
   * processes write to (one with `watch`), only while the database's notifications of their writes are arriving.
   */
  cacheSessions?: boolean;
}

/** Built-in accounts, the embedded default: users in auth.users, scrypt hashes, opaque session tokens. */
export function createBuiltInAuth({ db, secureCookies, onMailQueued, cacheSessions = false }: BuiltInAuthOptions): AuthPort {
  const cookie = { httpOnly: true, secure: secureCookies, sameSite: 'lax' as const, path: '/' };
  const cache = cacheSessions ? createSessionCache() : null;
  if (cache && db.watch) {
    cache.pause();
    db.watch(AUTH_CHANGES_CHANNEL, {
      changed: () => cache.forgetAll(),
      live: (live) => (live ? cache.resume() : cache.pause()),
    }).catch((error: unknown) => log.warn({ err: error }, 'sessions are not kept in memory'));
  }

  /** Runs a write to accounts or sessions as service_role; once it has committed, no cached session predates it. */
  async function write<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
    const result = await asService(db, fn);
    cache?.forgetAll();
    return result;
  }

  async function queueMail(tx: Sql, mail: MailMessage, dedupeKey: string) {
    await queueJob(tx, 'email', mail, dedupeKey);
  }

  /** Marks every live link of one purpose used, and drops the sign-ups waiting on them. */
  async function retireTokens(tx: Sql, userId: string, purpose: TokenPurpose) {
    await tx.query(
      `update public.auth_tokens set used_at = now(), password_hash = null, user_meta = null
       where user_id = $1 and purpose = $2 and used_at is null`,
      [userId, purpose],
    );
  }

  /** A reset link; asking again retires the previous one, so only the newest link in the mailbox works. */
  async function issueResetToken(tx: Sql, userId: string) {
    await retireTokens(tx, userId, 'reset_password');
    const token = newToken();
    await tx.query(
      `insert into public.auth_tokens (token_hash, user_id, purpose, expires_at) values ($1, $2, 'reset_password', now() + $3::interval)`,
      [tokenHash(token), userId, RESET_TTL],
    );
    return token;
  }

  /**
   * A verification link that carries its own sign-up's password hash and names. Earlier sign-ups' links stay live:
   * retiring them would let anyone who knows the address kill the owner's link by signing up again. A link confirms
   * only with the password of a sign-up still waiting (see verifyEmail), and confirming spends the others.
   */
  async function issueSignUpToken(tx: Sql, userId: string, signUp: PendingSignUp) {
    const token = newToken();
    await tx.query(
      `insert into public.auth_tokens (token_hash, user_id, purpose, expires_at, password_hash, user_meta)
       values ($1, $2, 'verify_email', now() + $3::interval, $4, jsonb_build_object('first_name', $5::text, 'last_name', $6::text))`,
      [tokenHash(token), userId, VERIFY_TTL, signUp.hash, signUp.firstName, signUp.lastName],
    );
    return token;
  }

  /** Issues a sign-up's confirmation link and queues the mail that carries it. */
  async function sendSignUpLink(tx: Sql, userId: string, email: string, signUp: PendingSignUp, origin: string) {
    const token = await issueSignUpToken(tx, userId, signUp);
    await queueMail(tx, verificationEmail(email, `${origin}/confirm-email?token=${token}`), `verify:${tokenHash(token)}`);
  }

  /** Spends a reset link: its user when it is live, marking it used in the same statement. */
  async function spendResetToken(tx: Sql, token: string) {
    const [row] = await tx.query<{ user_id: string }>(
      `update public.auth_tokens set used_at = now()
       where token_hash = $1 and purpose = 'reset_password' and used_at is null and expires_at > now()
       returning user_id`,
      [tokenHash(token)],
    );
    return row ?? null;
  }

  function sessionToken(jar: CookieJar): string | null {
    return jar.getAll().find((c) => c.name === SESSION_COOKIE)?.value ?? null;
  }

  /** The live session a session token stands for (cookie or bearer), with its account and idle state. */
  async function sessionFor(token: string): Promise<CurrentSession | null> {
    const hash = tokenHash(token);
    const cached = cache?.get(hash);
    if (cached) return cached;
    const generation = cache?.generation() ?? 0;
    const sessionKey = `builtin:${hash}`;
    // Session, account and idle state in one statement: every signed-in request pays for this, so it is one round trip.
    const [row] = await serviceStatement<
      UserRow & { created_at: Date; expires_at: Date; last_seen_at: Date | null; idle: boolean; touch_due: boolean }
    >(
      db,
      `select ${USER_COLUMNS}, s.created_at, s.created_at + make_interval(secs => $2) as expires_at, a.last_seen_at,
         ${activitySql('s.created_at', '$4', '$5')}
       from public.auth_sessions s join auth.users u on u.id = s.user_id
       left join public.session_activity a on a.session_key = $3
       where s.token_hash = $1 and s.revoked_at is null and s.created_at > now() - make_interval(secs => $2)`,
      [hash, SESSION_MAX_AGE_S, sessionKey, ...ACTIVITY_PARAMS],
    );
    if (!row) return null;
    const session: CurrentSession = {
      user: toUser(row),
      claims: { sub: row.id, email: row.email, role: 'authenticated' },
      sessionKey,
      startedAt: row.created_at,
      activity: { idle: row.idle, touchDue: row.touch_due },
    };
    // Until a new activity write is due, the database would answer exactly this.
    if (cache && row.last_seen_at && !row.idle && !row.touch_due) {
      const until = Math.min(row.last_seen_at.getTime() + ACTIVITY_GRANULARITY_S * 1000, row.expires_at.getTime());
      cache.set(hash, Object.freeze(session), until, generation);
    }
    return session;
  }

  /** Revokes a session token's session (logout, idle sign-out); revoking twice changes nothing. */
  async function revokeSession(token: string): Promise<void> {
    await write((tx) =>
      tx.query(`update public.auth_sessions set revoked_at = now() where token_hash = $1 and revoked_at is null`, [
        tokenHash(token),
      ]),
    );
  }

  return {
    name: 'built-in',

    async signUp(input, { origin }) {
      if (input.password.length < MIN_PASSWORD_LENGTH) return fail('weak_password', AUTH_MESSAGES.passwordTooShort);
      const email = normalizeEmail(input.email);
      // Hash before looking the address up, so a known and an unknown address take the same time.
      const hash = await hashPassword(input.password);
      await write(async (tx) => {
        const [existing] = await tx.query<UserRow>(`select ${USER_COLUMNS} from auth.users u where u.email = $1`, [email]);
        if (existing?.email_confirmed_at) {
          await queueMail(tx, accountExistsEmail(email, `${origin}/`), `account-exists:${existing.id}:${newToken()}`);
          return;
        }
        const signUp: PendingSignUp = { hash, firstName: input.firstName.trim(), lastName: input.lastName.trim() };
        // An unverified account belongs to no one yet: the newest sign-up's password and names stand in auth.users
        // (so its owner hears 'Email not confirmed' at login), and verification sets those of the link used.
        const [user] = existing
          ? await tx.query<{ id: string }>(
              `update auth.users set encrypted_password = $2,
                 raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb) || jsonb_build_object('first_name', $3::text, 'last_name', $4::text),
                 updated_at = now()
               where id = $1 returning id`,
              [existing.id, signUp.hash, signUp.firstName, signUp.lastName],
            )
          : await tx.query<{ id: string }>(
              `insert into auth.users (email, encrypted_password, raw_user_meta_data)
               values ($1, $2, jsonb_build_object('first_name', $3::text, 'last_name', $4::text))
               returning id`,
              [email, signUp.hash, signUp.firstName, signUp.lastName],
            );
        if (!user) throw new Error('sign-up insert returned no row');
        await sendSignUpLink(tx, user.id, email, signUp, origin);
      });
      onMailQueued?.();
      return OK;
    },

    async signIn({ email, password }, jar) {
      const [user] = await serviceStatement<UserRow>(db, `select ${USER_COLUMNS} from auth.users u where u.email = $1`, [
        normalizeEmail(email),
      ]);
      const matches = user?.encrypted_password
        ? await verifyPassword(password, user.encrypted_password)
        : await verifyDecoy(password);
      if (!user || !matches) return fail('invalid_credentials', 'Invalid login credentials');
      if (!user.email_confirmed_at) return fail('email_not_confirmed', 'Email not confirmed');

      const previous = sessionToken(jar);
      const token = newToken();
      await write(async (tx) => {
        // A new session id at every login; the one this browser held before is revoked.
        if (previous)
          await tx.query(`update public.auth_sessions set revoked_at = now() where token_hash = $1`, [tokenHash(previous)]);
        await tx.query(`insert into public.auth_sessions (token_hash, user_id) values ($1, $2)`, [tokenHash(token), user.id]);
        // Logging in is activity: idle sign-out counts from here even if the session is never used again.
        await recordActivity(tx, `builtin:${tokenHash(token)}`, user.id);
      });
      jar.set(SESSION_COOKIE, token, { ...cookie, maxAge: SESSION_MAX_AGE_S });
      return { ok: true, value: toUser(user) };
    },

    async signOut(jar) {
      const token = sessionToken(jar);
      if (token) await revokeSession(token);
      jar.set(SESSION_COOKIE, '', { ...cookie, maxAge: 0 });
    },

    async requestPasswordReset(email, { origin }) {
      const queued = await asService(db, async (tx) => {
        const [user] = await tx.query<UserRow>(`select ${USER_COLUMNS} from auth.users u where u.email = $1`, [
          normalizeEmail(email),
        ]);
        if (!user) return false;
        const token = await issueResetToken(tx, user.id);
        await queueMail(tx, resetEmail(user.email, `${origin}/reset-password?token=${token}`), `reset:${tokenHash(token)}`);
        return true;
      });
      if (queued) onMailQueued?.();
    },

    async resendConfirmation(email, { origin }) {
      const queued = await write(async (tx) => {
        const [user] = await tx.query<UserRow>(`select ${USER_COLUMNS} from auth.users u where u.email = $1`, [
          normalizeEmail(email),
        ]);
        if (!user || user.email_confirmed_at || !user.encrypted_password) return false;
        // A new link for the newest sign-up (whose password and names auth.users holds while the address waits):
        // like every link, it confirms only with the password of a sign-up still waiting.
        const signUp = { hash: user.encrypted_password, firstName: user.first_name ?? '', lastName: user.last_name ?? '' };
        await sendSignUpLink(tx, user.id, user.email, signUp, origin);
        return true;
      });
      if (queued) onMailQueued?.();
    },

    async resetPassword({ token, password }): Promise<AuthResult> {
      if (password.length < MIN_PASSWORD_LENGTH) return fail('weak_password', AUTH_MESSAGES.passwordTooShort);
      const hash = await hashPassword(password);
      const done = await write(async (tx) => {
        const userId = (await spendResetToken(tx, token))?.user_id;
        if (!userId) return false;
        // The link proved the shopper reads this mailbox, so the address counts as confirmed too, and no sign-up
        // still waiting for verification may replace the password chosen here.
        await retireTokens(tx, userId, 'verify_email');
        await tx.query(
          `update auth.users set encrypted_password = $2, email_confirmed_at = coalesce(email_confirmed_at, now()), updated_at = now()
           where id = $1`,
          [userId, hash],
        );
        await tx.query(`update public.auth_sessions set revoked_at = now() where user_id = $1 and revoked_at is null`, [userId]);
        return true;
      });
      return done ? OK : fail('invalid_token', AUTH_MESSAGES.invalidToken);
    },

    async verifyEmail({ token, password }): Promise<AuthResult<{ email: string }>> {
      // The link proves its reader holds the mailbox; the password proves which sign-up is theirs. A link alone never
      // confirms an account: whoever signed up first with someone else's address would then own it once the mailbox's
      // owner clicked (the owner's own sign-up, or a link they never asked for). Read, not spent, until one matches.
      const pending = await serviceStatement<{
        token_hash: string;
        user_id: string;
        password_hash: string | null;
        user_meta: string | null;
        confirmed: boolean;
        account_password: string | null;
        email: string;
      }>(
        db,
        `select t.token_hash, t.user_id, t.password_hash, t.user_meta::text as user_meta,
           u.email_confirmed_at is not null as confirmed, u.encrypted_password as account_password, u.email
         from public.auth_tokens link
         join public.auth_tokens t on t.user_id = link.user_id
         join auth.users u on u.id = link.user_id
         where link.token_hash = $1 and link.purpose = 'verify_email' and link.used_at is null and link.expires_at > now()
           and t.purpose = 'verify_email' and t.used_at is null and t.expires_at > now()
         order by (t.token_hash = $1) desc, t.created_at desc`,
        [tokenHash(token)],
      );
      const first = pending[0];
      if (!first) return fail('invalid_token', AUTH_MESSAGES.invalidToken);
      // Each pending sign-up's own password, this link's first; an account already confirmed, or a link from before
      // sign-ups were stored with their links, has the account's password. Every candidate is hashed against, match
      // or not, so the answer's time does not say which one matched.
      const candidates = pending
        .filter((p) => p.password_hash !== null && !p.confirmed)
        .map((p) => ({ hash: p.password_hash as string, meta: p.user_meta }));
      if (candidates.length === 0 || first.confirmed) candidates.push({ hash: first.account_password ?? '', meta: null });
      const matches = await Promise.all(
        candidates.map((c) => (c.hash ? verifyPassword(password, c.hash) : verifyDecoy(password))),
      );
      const chosen = candidates.find((_, i) => matches[i] && candidates[i]?.hash);
      if (!chosen) return fail('invalid_credentials', CONFIRM_PASSWORD_WRONG);

      const done = await write(async (tx) => {
        // Spent here, once: of two confirmations at the same moment, only one finds the link still live.
        const [spent] = await tx.query<{ user_id: string }>(
          `update public.auth_tokens set used_at = now(), password_hash = null, user_meta = null
           where token_hash = $1 and purpose = 'verify_email' and used_at is null and expires_at > now() returning user_id`,
          [tokenHash(token)],
        );
        if (!spent) return false;
        // The password typed now, which the reader chose, takes over with its sign-up's names; every other pending
        // sign-up (perhaps someone else's, with a password they know) is spent unused.
        await tx.query(
          `update auth.users set
             encrypted_password = case when email_confirmed_at is null then $2 else encrypted_password end,
             raw_user_meta_data = case when email_confirmed_at is null and $3::text is not null
               then coalesce(raw_user_meta_data, '{}'::jsonb) || $3::text::jsonb else raw_user_meta_data end,
             email_confirmed_at = coalesce(email_confirmed_at, now()),
             updated_at = now()
           where id = $1`,
          [spent.user_id, chosen.hash, chosen.meta],
        );
        await retireTokens(tx, spent.user_id, 'verify_email');
        // Login refuses unconfirmed accounts, so none should have a session; if one somehow does, it ends here.
        await tx.query(`update public.auth_sessions set revoked_at = now() where user_id = $1 and revoked_at is null`, [
          spent.user_id,
        ]);
        return true;
      });
      return done ? { ok: true, value: { email: first.email } } : fail('invalid_token', AUTH_MESSAGES.invalidToken);
    },

    currentSession(jar) {
      const token = sessionToken(jar);
      return token ? sessionFor(token) : Promise.resolve(null);
    },

    // A non-browser client sends the same opaque token the cookie carries, so the same checks apply: revoked at
    // logout, at a password reset or by idle sign-out, and expired after SESSION_MAX_AGE_S.
    bearerSession: sessionFor,
    endBearerSession: revokeSession,
  };
}
