import { describe, expect, it } from 'vitest';
import { CONFIRM_PASSWORD_WRONG } from '@/server/auth/auth.port';
import { createBuiltInAuth, SESSION_COOKIE } from '@/server/auth/builtin.server';
import { activeSession } from '@/server/auth/session.server';
import { asService } from '@/server/db/roles.server';
import { browser } from './browser';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();

const origin = 'http://shop.test';
const auth = () => createBuiltInAuth({ db, secureCookies: false });

/** The newest e-mail queued for an address, and the token in its link. */
async function lastMail(to: string) {
  const rows = await asService(db, (tx) =>
    tx.query<{ payload: { to: string; subject: string; text: string } }>(
      `select payload from public.outbox where kind = 'email' and payload ->> 'to' = $1 order by id desc limit 1`,
      [to],
    ),
  );
  const mail = rows[0]?.payload;
  if (!mail) throw new Error(`no mail for ${to}`);
  const token = /token=([\w-]+)/.exec(mail.text)?.[1] ?? '';
  return { ...mail, token };
}

const signUp = (email: string, password = 'lavender-fields') =>
  auth().signUp({ email, password, firstName: 'Maya', lastName: 'Thompson' }, { origin });

describe(`built-in accounts on ${TEST_DATABASE_KIND}`, () => {
  it('sign up → verification mail → verify → login → logout', async () => {
    expect(await signUp('Maya@Example.com')).toEqual({ ok: true, value: undefined });
    const mail = await lastMail('maya@example.com');
    expect(mail.subject).toBe('Confirm your Aurelia account');
    expect(mail.text).toContain(`${origin}/confirm-email?token=`);

    const jar = browser();
    expect(await auth().signIn({ email: 'maya@example.com', password: 'lavender-fields' }, jar)).toEqual({
      ok: false,
      error: { code: 'email_not_confirmed', message: 'Email not confirmed' },
    });

    expect((await auth().verifyEmail({ token: mail.token, password: 'lavender-fields' })).ok).toBe(true);
    expect((await auth().verifyEmail({ token: mail.token, password: 'lavender-fields' })).ok).toBe(false); // single use

    const login = await auth().signIn({ email: ' MAYA@example.com ', password: 'lavender-fields' }, jar);
    expect(login).toMatchObject({ ok: true, value: { email: 'maya@example.com', firstName: 'Maya', lastName: 'Thompson' } });
    expect(jar.options.get(SESSION_COOKIE)).toMatchObject({ httpOnly: true, sameSite: 'lax', path: '/' });

    const session = await auth().currentSession(jar);
    expect(session?.claims).toEqual({ sub: session?.user.id, email: 'maya@example.com', role: 'authenticated' });

    await auth().signOut(jar);
    expect(await auth().currentSession(jar)).toBeNull();
    await auth().signOut(jar); // a missing session is not an error
  });

  it('stores a hash, never the password or the session token', async () => {
    await signUp('hash@example.com', 'secret-garden-9');
    const [user] = await db.query<{ encrypted_password: string }>(
      `select encrypted_password from auth.users where email = 'hash@example.com'`,
    );
    expect(user?.encrypted_password).toMatch(/^scrypt\$/);
    expect(user?.encrypted_password).not.toContain('secret-garden-9');
  });

  it('answers a sign-up for an existing account exactly like a new one, and mails the owner instead', async () => {
    await signUp('twice@example.com');
    const first = await lastMail('twice@example.com');
    await auth().verifyEmail({ token: first.token, password: 'lavender-fields' });
    expect(await signUp('twice@example.com', 'another-password')).toEqual({ ok: true, value: undefined });
    expect((await lastMail('twice@example.com')).subject).toBe('You already have an Aurelia account');
    const [count] = await db.query<{ n: number }>(`select count(*)::int as n from auth.users where email = 'twice@example.com'`);
    expect(count?.n).toBe(1);
    // The original password still works: the second sign-up changed nothing.
    expect((await auth().signIn({ email: 'twice@example.com', password: 'lavender-fields' }, browser())).ok).toBe(true);
  });

  it('puts nothing the sender typed into the confirmation mail: a first name carrying a lure is not greeted', async () => {
    const lure = 'URGENT: your account is locked. Re-verify at http://evil.example/a';
    await auth().signUp({ email: 'lure@example.com', password: 'lavender-fields', firstName: lure, lastName: lure }, { origin });
    const mail = await lastMail('lure@example.com');
    const [payload] = await db.query<{ html: string }>(
      `select payload ->> 'html' as html from public.outbox where payload ->> 'to' = 'lure@example.com'`,
    );
    for (const text of [mail.text, mail.subject, payload?.html ?? '']) {
      expect(text).not.toContain('evil.example');
      expect(text).not.toContain('URGENT');
    }
    expect(mail.text).toContain('Hello,');
  });

  it('a sign-up with a confirmed address mails no reset link, so the owner’s own reset link keeps working', async () => {
    await signUp('owner-reset@example.com');
    await auth().verifyEmail({ token: (await lastMail('owner-reset@example.com')).token, password: 'lavender-fields' });
    await auth().requestPasswordReset('owner-reset@example.com', { origin });
    const reset = await lastMail('owner-reset@example.com');
    for (let i = 0; i < 3; i++) await signUp('owner-reset@example.com', `strangers-password-${i}`);
    const exists = await lastMail('owner-reset@example.com');
    expect(exists.subject).toBe('You already have an Aurelia account');
    expect(exists.text).not.toContain('token=');
    expect(exists.text).toContain(`${origin}/`);
    expect((await auth().resetPassword({ token: reset.token, password: 'owners-new-password' })).ok).toBe(true);
  });

  describe('pre-hijacking: an attacker signs up first with the victim’s address', () => {
    const victim = { email: 'victim@example.com', password: 'victims-own-secret', firstName: 'Vera', lastName: 'Victim' };
    const attacker = { email: 'victim@example.com', password: 'attackers-secret', firstName: 'Mallory', lastName: 'M' };
    const join = (who: typeof victim) => auth().signUp({ ...who }, { origin });
    const canSignIn = async (password: string) => (await auth().signIn({ email: victim.email, password }, browser())).ok;

    it('victim signs up after the attacker and verifies: only the victim’s password and name are in charge', async () => {
      await join(attacker);
      const attackersLink = (await lastMail(victim.email)).token; // lands in the victim's mailbox, unread
      await join(victim);
      const mail = await lastMail(victim.email);
      expect(mail.text).not.toContain('Mallory');

      expect((await auth().verifyEmail({ token: mail.token, password: victim.password })).ok).toBe(true);
      expect(await canSignIn(attacker.password)).toBe(false);
      const jar = browser();
      expect(await auth().signIn({ email: victim.email, password: victim.password }, jar)).toMatchObject({
        ok: true,
        value: { firstName: 'Vera', lastName: 'Victim' },
      });
      // The attacker's own link, had it been clicked later, can no longer change anything.
      expect((await auth().verifyEmail({ token: attackersLink, password: attacker.password })).ok).toBe(false);
      expect((await auth().verifyEmail({ token: attackersLink, password: victim.password })).ok).toBe(false);
      expect(await canSignIn(attacker.password)).toBe(false);
      expect(await auth().currentSession(jar)).not.toBeNull();
    });

    it('attacker signs up again after the victim: the victim’s earlier link still sets the victim’s password', async () => {
      const email = 'victim2@example.com';
      await auth().signUp({ ...victim, email }, { origin });
      const victimsLink = (await lastMail(email)).token;
      await auth().signUp({ ...attacker, email }, { origin });
      const attackersLink = (await lastMail(email)).token;

      expect((await auth().verifyEmail({ token: victimsLink, password: victim.password })).ok).toBe(true);
      expect((await auth().signIn({ email, password: attacker.password }, browser())).ok).toBe(false);
      expect(await auth().signIn({ email, password: victim.password }, browser())).toMatchObject({
        ok: true,
        value: { firstName: 'Vera' },
      });
      // Verifying spent every other pending sign-up: the attacker's link is dead and changes nothing.
      expect((await auth().verifyEmail({ token: attackersLink, password: attacker.password })).ok).toBe(false);
      expect((await auth().signIn({ email, password: victim.password }, browser())).ok).toBe(true);
    });

    it('victim clicks the attacker’s older link: it confirms with the victim’s password, never the attacker’s', async () => {
      const email = 'victim6@example.com';
      await auth().signUp({ ...attacker, email }, { origin });
      const attackersLink = (await lastMail(email)).token;
      await auth().signUp({ ...victim, email }, { origin });
      // Two identical mails: the victim opens the older one, and types their own password.
      expect((await auth().verifyEmail({ token: attackersLink, password: victim.password })).ok).toBe(true);
      expect((await auth().signIn({ email, password: attacker.password }, browser())).ok).toBe(false);
      expect(await auth().signIn({ email, password: victim.password }, browser())).toMatchObject({
        ok: true,
        value: { firstName: 'Vera', lastName: 'Victim' },
      });
    });

    it('a link the mailbox’s owner never asked for confirms nothing without the password chosen with it', async () => {
      const email = 'victim7@example.com';
      await auth().signUp({ ...attacker, email }, { origin });
      const unsolicited = (await lastMail(email)).token;
      // The owner clicks, and types what they would use: not the attacker's password.
      expect(await auth().verifyEmail({ token: unsolicited, password: victim.password })).toEqual({
        ok: false,
        error: { code: 'invalid_credentials', message: CONFIRM_PASSWORD_WRONG },
      });
      const [user] = await db.query<{ confirmed: boolean }>(
        `select email_confirmed_at is not null as confirmed from auth.users where email = $1`,
        [email],
      );
      expect(user?.confirmed).toBe(false);
      expect((await auth().signIn({ email, password: attacker.password }, browser())).ok).toBe(false);
      // Nothing was spent: the owner can still confirm with a reset, which sets a password they choose.
      await auth().requestPasswordReset(email, { origin });
      expect((await auth().resetPassword({ token: (await lastMail(email)).token, password: victim.password })).ok).toBe(true);
      expect((await auth().signIn({ email, password: attacker.password }, browser())).ok).toBe(false);
      expect((await auth().verifyEmail({ token: unsolicited, password: attacker.password })).ok).toBe(false);
    });

    it('two confirmations of one link at once confirm it once', async () => {
      const email = 'victim8@example.com';
      await auth().signUp({ ...victim, email }, { origin });
      const link = (await lastMail(email)).token;
      const results = await Promise.all([1, 2].map(() => auth().verifyEmail({ token: link, password: victim.password })));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
    });

    it('no one holds a session on an unverified account, whichever password they try', async () => {
      const email = 'victim3@example.com';
      await auth().signUp({ ...attacker, email }, { origin });
      await auth().signUp({ ...victim, email }, { origin });
      for (const password of [attacker.password, victim.password]) {
        const jar = browser();
        expect((await auth().signIn({ email, password }, jar)).ok).toBe(false);
        expect(jar.cookies.has(SESSION_COOKIE)).toBe(false);
      }
      const [sessions] = await db.query<{ n: number }>(
        `select count(*)::int as n from public.auth_sessions s join auth.users u on u.id = s.user_id where u.email = $1`,
        [email],
      );
      expect(sessions?.n).toBe(0);
    });

    it('a reset of the unverified account leaves no pending sign-up able to replace the new password', async () => {
      const email = 'victim5@example.com';
      await auth().signUp({ ...attacker, email }, { origin });
      const attackersLink = (await lastMail(email)).token;
      await auth().requestPasswordReset(email, { origin });
      expect((await auth().resetPassword({ token: (await lastMail(email)).token, password: victim.password })).ok).toBe(true);
      expect((await auth().verifyEmail({ token: attackersLink, password: attacker.password })).ok).toBe(false);
      expect((await auth().signIn({ email, password: attacker.password }, browser())).ok).toBe(false);
      expect((await auth().signIn({ email, password: victim.password }, browser())).ok).toBe(true);
    });

    it('keeps no pending password once the account is verified', async () => {
      const email = 'victim4@example.com';
      await auth().signUp({ ...attacker, email }, { origin });
      await auth().signUp({ ...victim, email }, { origin });
      await auth().verifyEmail({ token: (await lastMail(email)).token, password: victim.password });
      const [left] = await db.query<{ n: number }>(
        `select count(*)::int as n from public.auth_tokens t join auth.users u on u.id = t.user_id
         where u.email = $1 and (t.used_at is null or t.password_hash is not null)`,
        [email],
      );
      expect(left?.n).toBe(0);
    });
  });

  it('refuses a wrong password and an unknown e-mail with the same answer', async () => {
    await signUp('known@example.com');
    await auth().verifyEmail({ token: (await lastMail('known@example.com')).token, password: 'lavender-fields' });
    const wrong = await auth().signIn({ email: 'known@example.com', password: 'nope-nope-nope' }, browser());
    const unknown = await auth().signIn({ email: 'nobody@example.com', password: 'nope-nope-nope' }, browser());
    expect(wrong).toEqual({ ok: false, error: { code: 'invalid_credentials', message: 'Invalid login credentials' } });
    expect(unknown).toEqual(wrong);
  });

  it('gives a new session id at every login and revokes the old one', async () => {
    await signUp('rotate@example.com');
    await auth().verifyEmail({ token: (await lastMail('rotate@example.com')).token, password: 'lavender-fields' });
    const jar = browser();
    await auth().signIn({ email: 'rotate@example.com', password: 'lavender-fields' }, jar);
    const before = jar.cookies.get(SESSION_COOKIE) ?? '';
    const stolen = browser();
    stolen.set(SESSION_COOKIE, before, {});
    await auth().signIn({ email: 'rotate@example.com', password: 'lavender-fields' }, jar);
    expect(jar.cookies.get(SESSION_COOKIE)).not.toBe(before);
    expect(await auth().currentSession(stolen)).toBeNull();
    expect(await auth().currentSession(jar)).not.toBeNull();
  });

  it('resets a password with a single-use link and ends every other session', async () => {
    await signUp('reset@example.com');
    await auth().verifyEmail({ token: (await lastMail('reset@example.com')).token, password: 'lavender-fields' });
    const elsewhere = browser();
    await auth().signIn({ email: 'reset@example.com', password: 'lavender-fields' }, elsewhere);

    await auth().requestPasswordReset('reset@example.com', { origin });
    const mail = await lastMail('reset@example.com');
    expect(mail.subject).toBe('Reset your Aurelia password');
    expect(mail.text).toContain(`${origin}/reset-password?token=`);

    expect((await auth().resetPassword({ token: mail.token, password: 'short' })).ok).toBe(false);
    expect(await auth().resetPassword({ token: mail.token, password: 'new-lavender-7' })).toEqual({ ok: true, value: undefined });
    expect(await auth().resetPassword({ token: mail.token, password: 'again-lavender-8' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_token' },
    });
    expect(await auth().currentSession(elsewhere)).toBeNull();
    expect((await auth().signIn({ email: 'reset@example.com', password: 'new-lavender-7' }, browser())).ok).toBe(true);
  });

  it('refuses an expired reset link', async () => {
    await signUp('expired@example.com');
    await auth().requestPasswordReset('expired@example.com', { origin });
    const mail = await lastMail('expired@example.com');
    await db.query(`update public.auth_tokens set expires_at = now() - interval '1 second' where purpose = 'reset_password'`);
    expect((await auth().resetPassword({ token: mail.token, password: 'new-lavender-7' })).ok).toBe(false);
  });

  it('says nothing and sends nothing for a reset of an unknown e-mail', async () => {
    const [before] = await db.query<{ n: number }>(`select count(*)::int as n from public.outbox`);
    await auth().requestPasswordReset('ghost@example.com', { origin });
    const [after] = await db.query<{ n: number }>(`select count(*)::int as n from public.outbox`);
    expect(after?.n).toBe(before?.n);
  });

  it('ends a session idle for 15 minutes, judged by the server clock', async () => {
    await signUp('idle@example.com');
    await auth().verifyEmail({ token: (await lastMail('idle@example.com')).token, password: 'lavender-fields' });
    const jar = browser();
    await auth().signIn({ email: 'idle@example.com', password: 'lavender-fields' }, jar);
    const session = await activeSession(db, auth(), jar, { touch: true });
    expect(session?.user.email).toBe('idle@example.com');

    // 14 minutes of quiet: still signed in, and a check without activity does not reset the clock.
    await db.query(`update public.session_activity set last_seen_at = now() - interval '14 minutes' where session_key = $1`, [
      session?.sessionKey,
    ]);
    expect(await activeSession(db, auth(), jar, { touch: false })).not.toBeNull();
    const [seen] = await db.query<{ quiet: boolean }>(
      `select last_seen_at < now() - interval '13 minutes' as quiet from public.session_activity where session_key = $1`,
      [session?.sessionKey],
    );
    expect(seen?.quiet).toBe(true);

    // Past 15 minutes and the 30 s activity is recorded at (ACTIVITY_GRANULARITY_S): signed out for good.
    await db.query(
      `update public.session_activity set last_seen_at = now() - interval '15 minutes 31 seconds' where session_key = $1`,
      [session?.sessionKey],
    );
    expect(await activeSession(db, auth(), jar, { touch: true })).toBeNull();
    expect(jar.cookies.has(SESSION_COOKIE)).toBe(false);
    expect(await auth().currentSession(jar)).toBeNull();
  });
});
