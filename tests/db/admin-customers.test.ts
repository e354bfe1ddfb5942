/**
 * The admin's customers, on a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL): who a customer is (an
 * account, with the guest orders a verified account's e-mail has; else a guest by e-mail, any case), what they spent
 * net of refunds, the search (name or e-mail, any case, `%` and `_` taken literally) and the pages, and a customer's
 * page. Decision 010.
 */
import { describe, expect, it } from 'vitest';
import { customerDetail } from '@/features/admin/customers/customer-detail.server';
import { type CustomerRow, listCustomers } from '@/features/admin/customers/customer-list.server';
import { type CustomerCursor, type CustomerKey, guestKey } from '@/features/admin/customers/customers';
import { asService } from '@/server/db/roles.server';
import { account, order, refund, tag } from './customer-fixtures';
import { suiteDatabase } from './test-database';

const db = suiteDatabase();

const list = (q: string, limit = 50, after?: CustomerCursor) => asService(db, (tx) => listCustomers(tx, { q, limit, after }));
const only = async (q: string) => {
  const { rows } = await list(q);
  expect(rows, `one customer for ${q}`).toHaveLength(1);
  return rows[0] as CustomerRow;
};
const detail = (key: CustomerKey) => asService(db, (tx) => customerDetail(tx, key));

describe('who a customer is', () => {
  it('an account with its own orders and the guest orders placed with its e-mail (any case) is one customer', async () => {
    const t = tag('ann');
    const email = `${t}@example.com`;
    const id = await account(db, email, { first: 'Ann', last: 'Lee' });
    await order(db, { userId: id, email, name: 'Ann Lee', totalCents: 5000, createdAt: '2026-11-01T10:00:00Z' });
    await order(db, {
      userId: id,
      email: `work.${email}`,
      name: 'Ann at work',
      totalCents: 2000,
      createdAt: '2026-11-03T10:00:00Z',
    });
    const guest = await order(db, {
      email: email.toUpperCase(),
      name: 'A. Lee',
      totalCents: 3000,
      createdAt: '2026-11-02T10:00:00Z',
    });

    const row = await only(t);
    expect(row).toMatchObject({
      key: { kind: 'account', userId: id },
      name: 'Ann Lee',
      email,
      orders: 3,
      spentCents: 10_000,
      lastOrderAt: '2026-11-03T10:00:00.000000Z',
      subscribed: false,
    });
    // The guest's own key leads to the account: there is no separate guest customer of that e-mail.
    expect(await detail({ kind: 'guest', email })).toEqual({ moved: { kind: 'account', userId: id } });
    const page = await detail({ kind: 'account', userId: id });
    if (!page || !('found' in page)) throw new Error('no page');
    expect(page.found.orders.map((o) => [o.totalCents, o.guest])).toEqual([
      [2000, false],
      [3000, true],
      [5000, false],
    ]);
    expect(page.found.orders.find((o) => o.guest)?.id).toBe(guest);
  });

  it('an account whose e-mail is not confirmed does not take the guest orders of that e-mail', async () => {
    const t = tag('ursula');
    const email = `${t}@example.com`;
    const id = await account(db, email, { first: 'Ursula', verified: false });
    await order(db, { email, name: 'Ursula Guest', totalCents: 1500 });
    const { rows } = await list(t);
    expect(rows.map((r) => [r.key.kind, r.orders, r.spentCents])).toEqual(
      expect.arrayContaining([
        ['account', 0, 0],
        ['guest', 1, 1500],
      ]),
    );
    expect(rows).toHaveLength(2);
    expect(rows.find((r) => r.key.kind === 'account')?.key).toEqual({ kind: 'account', userId: id });
    expect(await detail({ kind: 'guest', email })).toMatchObject({ found: { orderCount: 1, account: null } });
  });

  it('a guest is one customer across the cases of their e-mail, named as on their latest order', async () => {
    const t = tag('gus');
    await order(db, { email: `${t}@Example.com`, name: 'Gus Old', totalCents: 1000, createdAt: '2026-10-01T10:00:00Z' });
    await order(db, {
      email: `${t.toUpperCase()}@example.com`,
      name: 'Gus New',
      totalCents: 2500,
      createdAt: '2026-10-05T10:00:00Z',
    });
    expect(await only(t)).toMatchObject({
      key: { kind: 'guest', email: `${t}@example.com` },
      name: 'Gus New',
      orders: 2,
      spentCents: 3500,
      subscribed: false,
    });
  });

  it('an account that has not ordered is a customer too: no orders, nothing spent, and whether it reads the newsletter', async () => {
    const t = tag('nina');
    const id = await account(db, `${t}@example.com`, { first: 'Nina', last: 'Park' });
    await db.query(`insert into public.newsletter_subscribers (user_id, email) values ($1, $2)`, [id, `${t}@example.com`]);
    expect(await only(t)).toMatchObject({ name: 'Nina Park', orders: 0, spentCents: 0, lastOrderAt: null, subscribed: true });
  });
});

describe('what a customer spent', () => {
  it('is what their orders came to less refunds pending or succeeded; a failed or canceled refund gave nothing back', async () => {
    const t = tag('rita');
    const email = `${t}@example.com`;
    const id = await account(db, email, { first: 'Rita' });
    const first = await order(db, { userId: id, email, name: 'Rita', totalCents: 10_000 });
    const second = await order(db, { userId: id, email, name: 'Rita', totalCents: 4_000 });
    const guest = await order(db, { email, name: 'Rita', totalCents: 1_000 });
    await refund(db, first, 2_500, 'succeeded');
    await refund(db, first, 1_000, 'pending');
    await refund(db, second, 4_000, 'failed');
    await refund(db, second, 300, 'canceled');
    await refund(db, guest, 1_000, 'succeeded');
    expect((await only(t)).spentCents).toBe(15_000 - 2_500 - 1_000 - 1_000);
    const page = await detail({ kind: 'account', userId: id });
    expect(page).toMatchObject({ found: { orderCount: 3, spentCents: 10_500 } });
    if (!page || !('found' in page)) throw new Error('no page');
    expect(page.found.orders.map((o) => o.refundedCents).sort((a, b) => a - b)).toEqual([0, 1_000, 3_500]);
  });
});

describe('the search', () => {
  it('finds a customer by part of their name or e-mail, in any case, and by a name or e-mail on any of their orders', async () => {
    const t = tag('srch');
    const email = `${t}.maya@example.com`;
    const id = await account(db, email, { first: 'Maya', last: `Thompson${t}` });
    await order(db, { userId: id, email: `${t}-gift@example.org`, name: `Grandma ${t}`, totalCents: 900 });
    for (const q of [`thompson${t}`.toUpperCase(), `${t}.MAYA@`, `${t}-GIFT@EXAMPLE`, `grandma ${t}`])
      expect((await only(q)).key, q).toEqual({ kind: 'account', userId: id });
  });

  it('takes % and _ literally: they match themselves, not any text or any character', async () => {
    const t = tag('wild');
    await order(db, { email: `${t}a_b@example.com`, name: `${t} Under`, totalCents: 100 });
    await order(db, { email: `${t}axb@example.com`, name: `${t} Cross`, totalCents: 100 });
    await order(db, { email: `${t}pct@example.com`, name: `${t} 100% Cotton`, totalCents: 100 });
    await order(db, { email: `${t}back@example.com`, name: `${t} Back\\slash`, totalCents: 100 });
    expect((await only(`${t}A_B`)).email).toBe(`${t}a_b@example.com`);
    expect((await only(`${t} 100%`)).name).toBe(`${t} 100% Cotton`);
    expect((await only('0% cot')).name).toBe(`${t} 100% Cotton`);
    expect((await only(`back\\s`)).name).toBe(`${t} Back\\slash`);
    expect((await list(`${t}%`)).rows).toHaveLength(0);
    expect((await list(`${t}_`)).rows).toHaveLength(0);
    // Without a search every customer is listed; with one that matches nobody, none.
    expect((await list(`${t}-nobody`)).rows).toEqual([]);
  });
});

describe('the pages of the list', () => {
  it('go through every customer once, most recent first (last order, else sign-up), ties in a fixed order', async () => {
    const t = tag('pager');
    const same = '2026-09-09T09:09:09.123456Z';
    const a = await account(db, `${t}.a@example.com`, { first: 'Pager', createdAt: '2026-09-10T00:00:00Z' });
    await account(db, `${t}.b@example.com`, { first: 'Pager', createdAt: '2026-09-01T00:00:00Z' });
    await order(db, {
      userId: a,
      email: `${t}.a@example.com`,
      name: 'Pager',
      totalCents: 100,
      createdAt: '2026-09-20T00:00:00Z',
    });
    for (const n of [1, 2, 3, 4, 5])
      await order(db, { email: `${t}.g${n}@example.com`, name: 'Pager', totalCents: 100, createdAt: same });
    const whole = (await list(t)).rows;
    expect(whole).toHaveLength(7);
    expect(whole[0]?.key).toEqual({ kind: 'account', userId: a });
    expect(whole.slice(1, 6).map((r) => r.email)).toEqual([1, 2, 3, 4, 5].map((n) => `${t}.g${n}@example.com`));
    expect(whole[6]?.email).toBe(`${t}.b@example.com`);

    const seen: CustomerRow[] = [];
    let after: CustomerCursor | undefined;
    let pages = 0;
    do {
      const page = await list(t, 2, after);
      seen.push(...page.rows);
      after = page.next;
      pages++;
    } while (after && pages < 10);
    expect(pages).toBe(4);
    expect(seen).toEqual(whole);
  });
});

describe('a customer’s page', () => {
  it('has their reviews, and the messages they sent from any e-mail of theirs, in any case', async () => {
    const t = tag('page');
    const email = `${t}@example.com`;
    const id = await account(db, email, { first: 'Page', last: 'Turner' });
    await order(db, { userId: id, email: `${t}.other@example.com`, name: 'Page Turner', totalCents: 700 });
    await db.query(`insert into public.product_reviews (product_id, user_id, rating, comment) values (3, $1, 4, 'Soft scrubs')`, [
      id,
    ]);
    await db.query(
      `insert into public.contact_messages (name, email, message) values ('Page', $1, 'Where is my order?'),
         ('Page', $2, 'From my other address'), ('Someone', 'someone.else@example.com', 'Not theirs')`,
      [email.toUpperCase(), `${t}.other@example.com`],
    );
    const page = await detail({ kind: 'account', userId: id });
    if (!page || !('found' in page)) throw new Error('no page');
    expect(page.found).toMatchObject({ name: 'Page Turner', email, account: { verified: true, subscribedAt: null } });
    expect(page.found.reviews).toMatchObject([{ productId: 3, rating: 4, comment: 'Soft scrubs', state: 'pending' }]);
    expect(page.found.messages.map((m) => m.message)).toEqual(['From my other address', 'Where is my order?']);
  });

  it('has the returns of every order of theirs, guest orders of their e-mail included, newest first, and no one else’s', async () => {
    const t = tag('returns');
    const email = `${t}@example.com`;
    const id = await account(db, email, { first: 'Re', last: 'Turner' });
    const own = await order(db, { userId: id, email, name: 'Re Turner', totalCents: 900 });
    const asGuest = await order(db, { email: email.toUpperCase(), name: 'Re Turner', totalCents: 500 });
    const others = await order(db, { email: `${t}.someone.else@example.com`, name: 'Someone', totalCents: 700 });
    const ask = (orderId: string, status: string, kind: string, at: string) =>
      db.query<{ id: string; number: string }>(
        `insert into public.order_returns (order_id, request_key, status, reason, items, kind, created_at)
         values ($1, gen_random_uuid(), $2, 'fit', '[{"itemId": "x", "quantity": 1}]', $3, $4) returning id, number::text`,
        [orderId, status, kind, at],
      );
    const [first] = await ask(own, 'refunded', 'return', '2026-11-01T10:00:00Z');
    const [second] = await ask(asGuest, 'requested', 'exchange', '2026-11-02T10:00:00Z');
    await ask(others, 'requested', 'return', '2026-11-03T10:00:00Z');
    const page = await detail({ kind: 'account', userId: id });
    if (!page || !('found' in page)) throw new Error('no page');
    expect(page.found.returns).toMatchObject([
      { id: second?.id, number: `RMA-${second?.number}`, orderId: asGuest, kind: 'exchange', status: 'requested' },
      { id: first?.id, number: `RMA-${first?.number}`, orderId: own, kind: 'return', status: 'refunded' },
    ]);
  });

  it('is nobody’s for an account that does not exist, or an e-mail with no guest order', async () => {
    expect(await detail({ kind: 'account', userId: '00000000-0000-4000-8000-00000000dead' })).toBeNull();
    expect(await detail(guestKey('nobody.at.all@example.com') as CustomerKey)).toBeNull();
  });
});
