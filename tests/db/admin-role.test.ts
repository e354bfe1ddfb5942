import { describe, expect, it } from 'vitest';
import { adminFor, listActions, recordAction } from '@/features/admin/admin.server';
import { createAdmin } from '@/features/admin/create-admin.server';
import { createBuiltInAuth } from '@/server/auth/builtin.server';
import { asService } from '@/server/db/roles.server';
import { browser } from './browser';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
const auth = () => createBuiltInAuth({ db, secureCookies: false });
const links = { origin: 'http://shop.test' };
let n = 0;
const address = (name: string) => `${name}${++n}@example.com`;

async function userId(email: string) {
  const [row] = await asService(db, (tx) => tx.query<{ id: string }>(`select id from auth.users where email = $1`, [email]));
  if (!row) throw new Error(`no account for ${email}`);
  return row.id;
}

async function verifiedShopper(email: string, password = 'lavender-fields') {
  await auth().signUp({ email, password, firstName: 'Maya', lastName: 'Thompson' }, links);
  await asService(db, (tx) => tx.query(`update auth.users set email_confirmed_at = now() where email = $1`, [email]));
  return userId(email);
}

describe(`who is an admin on ${TEST_DATABASE_KIND}`, () => {
  it('a verified account listed in ADMIN_EMAILS (any case), or promoted; nobody else', async () => {
    const owner = address('owner');
    const shopper = address('shopper');
    const ownerId = await verifiedShopper(owner);
    const shopperId = await verifiedShopper(shopper);
    expect(await adminFor(db, [owner], ownerId)).toEqual({ id: ownerId, email: owner });
    expect(await adminFor(db, [owner.toUpperCase().toLowerCase()], ownerId)).not.toBeNull();
    expect(await adminFor(db, [owner], shopperId)).toBeNull();
    expect(await adminFor(db, [], ownerId)).toBeNull();
  });

  it('an unverified account is no admin, even when its address is listed', async () => {
    const owner = address('unverified');
    await auth().signUp({ email: owner, password: 'attacker-pass', firstName: 'Eve', lastName: 'X' }, links);
    expect(await adminFor(db, [owner], await userId(owner))).toBeNull();
  });
});

describe(`npm run admin:create on ${TEST_DATABASE_KIND}`, () => {
  it('promotes a verified account without touching its password', async () => {
    const email = address('promote');
    const id = await verifiedShopper(email, 'own-lavender-1');
    expect(await createAdmin(db, { email: email.toUpperCase() })).toEqual({ ok: true, outcome: 'promoted' });
    expect(await adminFor(db, [], id)).toEqual({ id, email });
    expect((await auth().signIn({ email, password: 'own-lavender-1' }, browser())).ok).toBe(true);
    expect(await createAdmin(db, { email })).toEqual({ ok: true, outcome: 'already-admin' });
  });

  it('creates a verified admin account with the password given, and asks for one when there is none', async () => {
    const email = address('new');
    expect(await createAdmin(db, { email })).toMatchObject({ ok: false, needsPassword: true });
    expect(await createAdmin(db, { email, password: 'short' })).toMatchObject({ ok: false, needsPassword: true });
    expect(await createAdmin(db, { email, password: 'owner-lavender-9' })).toEqual({ ok: true, outcome: 'created' });
    const login = await auth().signIn({ email, password: 'owner-lavender-9' }, browser());
    expect(login.ok).toBe(true);
    expect(await adminFor(db, [], await userId(email))).not.toBeNull();
  });

  it('takes over an unverified sign-up with the owner’s address: the earlier password and link stop working', async () => {
    const email = address('hijack');
    await auth().signUp({ email, password: 'attacker-pass-1', firstName: 'Eve', lastName: 'X' }, links);
    const [mail] = await asService(db, (tx) =>
      tx.query<{ payload: { text: string } }>(
        `select payload from public.outbox where kind = 'email' and payload ->> 'to' = $1 order by id desc limit 1`,
        [email],
      ),
    );
    const attackerLink = /token=([\w-]+)/.exec(mail?.payload.text ?? '')?.[1] ?? '';
    expect(await createAdmin(db, { email, password: 'owner-lavender-9' })).toEqual({ ok: true, outcome: 'created' });
    expect((await auth().verifyEmail({ token: attackerLink, password: 'attacker-pass-1' })).ok).toBe(false);
    expect((await auth().signIn({ email, password: 'attacker-pass-1' }, browser())).ok).toBe(false);
    expect((await auth().signIn({ email, password: 'owner-lavender-9' }, browser())).ok).toBe(true);
  });

  it('refuses something that is not an e-mail address', async () => {
    expect(await createAdmin(db, { email: 'not-an-address', password: 'owner-lavender-9' })).toMatchObject({ ok: false });
  });
});

describe(`the admin activity log on ${TEST_DATABASE_KIND}`, () => {
  it('records who did what to what, before and after, newest first, a page at a time', async () => {
    const email = address('logger');
    const admin = { id: await verifiedShopper(email), email };
    await asService(db, async (tx) => {
      await recordAction(tx, admin, {
        action: 'review.approve',
        target: 'review:1',
        before: { approved: false },
        after: { approved: true },
      });
      await recordAction(tx, admin, {
        action: 'order.status',
        target: 'order:ORD-ABC123',
        before: 'processing',
        after: 'shipped',
      });
    });
    const [latest, earlier] = await asService(db, (tx) => listActions(tx, { limit: 2 }));
    expect(latest).toMatchObject({ adminEmail: email, action: 'order.status', before: 'processing', after: 'shipped' });
    expect(earlier).toMatchObject({ action: 'review.approve', before: { approved: false }, after: { approved: true } });
    const next = await asService(db, (tx) => listActions(tx, { limit: 2, before: earlier?.id }));
    expect(next.every((a) => a.id < (earlier?.id ?? 0))).toBe(true);
  });

  it('cannot be read or written by a shopper or a guest', async () => {
    for (const role of ['anon', 'authenticated']) {
      await expect(
        db.transaction((tx) => tx.query(`select * from public.admin_actions`), {
          text: `select set_config('role', $1, true)`,
          params: [role],
        }),
      ).rejects.toThrow(/permission denied/);
      await expect(
        db.transaction((tx) => tx.query(`select * from public.shop_admins`), {
          text: `select set_config('role', $1, true)`,
          params: [role],
        }),
      ).rejects.toThrow(/permission denied/);
    }
  });
});
