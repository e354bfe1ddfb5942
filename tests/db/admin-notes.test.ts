/**
 * The admin's private notes on an order and on a customer, through their endpoints as the routes run them (a Request
 * and a browser's cookies in, a Response out), on PGlite and, with TEST_DATABASE_URL, PostgreSQL. Only an admin gets
 * anything but 404; bad input is a 400 in words and writes nothing; each note is in the activity log; and a note never
 * reaches the shopper: not their orders, not their order's page, not the tables through their role.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AdminDeps } from '@/features/admin/admin.server';
import { customerDetail } from '@/features/admin/customers/customer-detail.server';
import { adminCustomerNoteRoute, adminOrderNoteRoute, customerNotes, orderNotes } from '@/features/admin/notes/notes.server';
import { orderByToken, orderOfShopper } from '@/features/orders/order-page.server';
import { listOrders } from '@/features/orders/orders.server';
import type { CookieJar } from '@/server/auth/auth.port';
import { createBuiltInAuth, SESSION_COOKIE } from '@/server/auth/builtin.server';
import { tokenHash } from '@/server/auth/tokens.server';
import { asService, asShopper, type ShopperClaims } from '@/server/db/roles.server';
import { loadCatalogueIndex } from '../unit/load-catalogue';
import { browser } from './browser';
import { account, order, tag } from './customer-fixtures';
import { sqlstate } from './shopper-fixtures';
import { suiteDatabase } from './test-database';

const db = suiteDatabase();
const SHOP = 'http://shop.test';
const PASSWORD = 'lavender-fields';
const OWNER = 'owner@admins.example';
const auth = () => createBuiltInAuth({ db, secureCookies: false });
const deps = (): AdminDeps => ({ db, auth: auth(), adminEmails: [OWNER] });

interface Account {
  id: string;
  email: string;
  claims: ShopperClaims;
  jar: () => CookieJar;
}

/** A verified account of the built-in accounts, signed in. */
async function signedIn(email: string): Promise<Account> {
  await auth().signUp({ email, password: PASSWORD, firstName: 'Ann', lastName: 'Lee' }, { origin: SHOP });
  await asService(db, (tx) => tx.query(`update auth.users set email_confirmed_at = now() where email = $1`, [email]));
  const first = browser();
  const login = await auth().signIn({ email, password: PASSWORD }, first);
  if (!login.ok) throw new Error(login.error.message);
  const token = first.getAll().find((c) => c.name === SESSION_COOKIE)?.value ?? '';
  return {
    id: login.value.id,
    email,
    claims: { sub: login.value.id, email, role: 'authenticated' },
    jar: () => browser({ [SESSION_COOKIE]: token }),
  };
}

let owner: Promise<Account> | undefined;
const admin = () => {
  owner ??= signedIn(OWNER);
  return owner;
};

const post = (body: unknown) =>
  new Request(`${SHOP}/api/admin/notes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

async function read(response: Promise<Response>) {
  const res = await response;
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const noteOnOrder = async (jar: CookieJar, orderId: string, body: unknown) =>
  read(adminOrderNoteRoute(deps(), post(body), jar, orderId));
const noteOnCustomer = async (jar: CookieJar, body: unknown) => read(adminCustomerNoteRoute(deps(), post(body), jar));

/** Every note and every admin action: what a refused request must leave as it was. */
const written = () =>
  asService(db, async (tx) => ({
    orderNotes: await tx.query('select * from public.order_notes order by id'),
    customerNotes: await tx.query('select * from public.customer_notes order by id'),
    actions: await tx.query('select * from public.admin_actions order by id'),
  }));

/** A shopper who bought once, signed in. */
async function shopperWithOrder() {
  const shopper = await signedIn(`${tag('shopper')}@example.com`);
  const orderId = await order(db, { userId: shopper.id, email: shopper.email, name: 'Ann Lee', totalCents: 2500 });
  return { shopper, orderId };
}

describe('a note on an order', () => {
  it('is saved trimmed with its author and time, listed newest first, and recorded in the activity log', async () => {
    const me = await admin();
    const { orderId } = await shopperWithOrder();
    const first = await noteOnOrder(me.jar(), orderId, { note: '  Called: leave it with the neighbour.\nThanks!  ' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      note: { body: 'Called: leave it with the neighbour.\nThanks!', adminEmail: OWNER, createdAt: expect.any(String) },
      message: expect.stringMatching(/^Note added to ORD-[0-9A-F]{6}\.$/),
    });
    expect((await noteOnOrder(me.jar(), orderId, { note: 'Second' })).status).toBe(201);
    const notes = await asService(db, (tx) => orderNotes(tx, orderId));
    expect(notes.map((n) => n.body)).toEqual(['Second', 'Called: leave it with the neighbour.\nThanks!']);
    const [action] = await asService(db, (tx) =>
      tx.query<{ action: string; target: string; admin_email: string; after: string }>(
        `select action, target, admin_email, after::text as after from public.admin_actions
          where action = 'order.note' and target like $1 order by id limit 1`,
        [`%${orderId}%`],
      ),
    );
    expect(action).toMatchObject({ action: 'order.note', admin_email: OWNER });
    expect(JSON.parse(action?.after ?? 'null')).toEqual({ note: 'Called: leave it with the neighbour.\nThanks!' });
  });

  it('refuses an empty note, a note of spaces, a too long one and a body without one, in words, writing nothing', async () => {
    const me = await admin();
    const { orderId } = await shopperWithOrder();
    const before = await written();
    const cases: [unknown, string][] = [
      [{ note: '' }, 'Write something in the note first.'],
      [{ note: ' \n\t ' }, 'Write something in the note first.'],
      [{ note: 'x'.repeat(2001) }, 'A note can be at most 2,000 characters; this one has 2,001.'],
      [{ note: 42 }, 'Send the note as text: {"note": "…"}.'],
      [{}, 'Send the note as text: {"note": "…"}.'],
    ];
    for (const [body, message] of cases)
      expect(await noteOnOrder(me.jar(), orderId, body), JSON.stringify(body).slice(0, 40)).toEqual({
        status: 400,
        body: { error: { code: 'invalid_request', message } },
      });
    expect((await noteOnOrder(me.jar(), orderId, '{"note": ')).status).toBe(400);
    expect(await written()).toEqual(before);
  });

  it('is 404 for an order that does not exist, and for an id that is no order id', async () => {
    const me = await admin();
    const before = await written();
    for (const id of ['00000000-0000-4000-8000-00000000dead', 'nope', undefined])
      expect(await noteOnOrder(me.jar(), id as string, { note: 'Hello' })).toEqual({
        status: 404,
        body: { error: { code: 'not_found', message: 'No such order.' } },
      });
    expect(await written()).toEqual(before);
  });
});

describe('a note on a customer', () => {
  it('goes on the account, or on the guest’s e-mail, and follows the guest once a verified account has it', async () => {
    const me = await admin();
    const t = tag('cust');
    const id = await account(db, `${t}@example.com`, { first: 'Cara' });
    expect(await noteOnCustomer(me.jar(), { userId: id, note: 'Prefers e-mail.' })).toMatchObject({
      status: 201,
      body: { message: `Note added to ${t}@example.com.` },
    });
    // A guest, then the same person signs up and confirms: the guest's note is on their account's page.
    const g = tag('guest');
    await order(db, { email: `${g}@example.com`, name: 'Gil', totalCents: 900 });
    expect(
      (await noteOnCustomer(me.jar(), { email: `${g.toUpperCase()}@EXAMPLE.COM`, note: 'Asked for a gift wrap.' })).status,
    ).toBe(201);
    const gil = await account(db, `${g}@example.com`, { first: 'Gil' });
    expect((await noteOnCustomer(me.jar(), { email: `${g}@example.com`, note: 'Now has an account.' })).status).toBe(201);
    const page = await asService(db, async (tx) => {
      const found = await customerDetail(tx, { kind: 'account', userId: gil });
      return found && 'found' in found ? customerNotes(tx, found.found.who) : [];
    });
    expect(page.map((n) => n.body)).toEqual(['Now has an account.', 'Asked for a gift wrap.']);
    const stored = await asService(db, (tx) =>
      tx.query<{ user_id: string | null; email: string | null }>(
        `select user_id::text, email from public.customer_notes where body = 'Now has an account.'`,
      ),
    );
    expect(stored).toEqual([{ user_id: gil, email: null }]);
    const actions = await asService(db, (tx) =>
      tx.query<{ target: string }>(`select target from public.admin_actions where action = 'customer.note' order by id`),
    );
    expect(actions.map((a) => a.target)).toEqual(
      expect.arrayContaining([
        `${t}@example.com (account ${id})`,
        `${g}@example.com (guest)`,
        `${g}@example.com (account ${gil})`,
      ]),
    );
  });

  it('refuses a note naming no customer, or two, and is 404 for a customer that does not exist, writing nothing', async () => {
    const me = await admin();
    const id = await account(db, `${tag('x')}@example.com`);
    const before = await written();
    const refused: [unknown, number, string][] = [
      [{ note: 'Hi' }, 400, 'Name the customer by userId (an account) or by email (a guest), one of the two.'],
      [
        { userId: id, email: 'a@example.com', note: 'Hi' },
        400,
        'Name the customer by userId (an account) or by email (a guest), one of the two.',
      ],
      [{ userId: id, note: '   ' }, 400, 'Write something in the note first.'],
      [{ userId: '00000000-0000-4000-8000-00000000dead', note: 'Hi' }, 404, 'No such customer.'],
      [{ userId: 'nope', note: 'Hi' }, 404, 'No such customer.'],
      [{ email: 'never.ordered@example.com', note: 'Hi' }, 404, 'No such customer.'],
      [{ email: 'no-at-sign', note: 'Hi' }, 404, 'No such customer.'],
    ];
    for (const [body, status, message] of refused)
      expect(await noteOnCustomer(me.jar(), body), JSON.stringify(body)).toMatchObject({ status, body: { error: { message } } });
    expect(await written()).toEqual(before);
  });
});

describe('notes are the admin’s alone', () => {
  it('a shopper’s session, a guest and a forged session cookie get the 404 a stranger gets, and nothing is written', async () => {
    const { shopper, orderId } = await shopperWithOrder();
    const before = await written();
    for (const jar of [shopper.jar(), browser(), browser({ [SESSION_COOKIE]: randomBytes(32).toString('base64url') })]) {
      const onOrder = await noteOnOrder(jar, orderId, { note: 'Mine now' });
      const onCustomer = await noteOnCustomer(jar, { userId: shopper.id, note: 'Mine now' });
      for (const answer of [onOrder, onCustomer])
        expect(answer).toEqual({ status: 404, body: { error: { code: 'not_found', message: 'Not found.' } } });
    }
    expect(await written()).toEqual(before);
  });

  it('a shopper’s role cannot read or write either table, not even about their own order', async () => {
    const me = await admin();
    const { shopper, orderId } = await shopperWithOrder();
    expect((await noteOnOrder(me.jar(), orderId, { note: 'Private: asked twice about a discount' })).status).toBe(201);
    expect((await noteOnCustomer(me.jar(), { userId: shopper.id, note: 'Private: about this shopper' })).status).toBe(201);
    for (const sql of [
      'select body from public.order_notes',
      'select body from public.customer_notes',
      `insert into public.order_notes (order_id, body, admin_email) values ('${orderId}', 'x', 'x@example.com')`,
    ]) {
      const error = await asShopper(db, shopper.claims, (tx) => tx.query(sql)).then(
        () => null,
        (e: unknown) => e,
      );
      expect(sqlstate(error), sql).toBe('42501');
    }
  });

  it('never reach the shopper’s orders, their order’s page or the page of the e-mailed link', async () => {
    const me = await admin();
    const { shopper, orderId } = await shopperWithOrder();
    const secret = `Private ${tag('note')}`;
    expect((await noteOnOrder(me.jar(), orderId, { note: secret })).status).toBe(201);
    expect((await noteOnCustomer(me.jar(), { userId: shopper.id, note: secret })).status).toBe(201);
    const token = randomBytes(24).toString('base64url');
    await asService(db, (tx) =>
      tx.query(`insert into public.order_access_tokens (token_hash, order_id) values ($1, $2)`, [tokenHash(token), orderId]),
    );
    const catalogue = loadCatalogueIndex();
    const history = await asShopper(db, shopper.claims, (tx) => listOrders(tx, catalogue));
    const page = await orderOfShopper(db, (fn) => asShopper(db, shopper.claims, fn), orderId);
    const linked = await orderByToken(db, token);
    expect(history.map((o) => o.id)).toContain(orderId);
    expect(page?.id).toBe(orderId);
    expect(linked?.id).toBe(orderId);
    for (const seen of [history, page, linked]) expect(JSON.stringify(seen)).not.toContain(secret);
  });
});
