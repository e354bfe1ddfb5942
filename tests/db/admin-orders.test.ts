/**
 * The admin's order endpoints as their routes run them: a Request and a browser's cookies in, a Response
 * out, on a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL, where concurrent requests really overlap),
 * with orders bought through the checkout and paid with the test processor. Only an admin gets anything but 404;
 * every change records one admin action; ten simultaneous clicks change an order once.
 */
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { NEXT_STATUSES } from '@/features/admin/orders/order-admin';
import { listOrdersForAdmin, orderForAdmin } from '@/features/admin/orders/order-queries.server';
import {
  type AdminOrderDeps,
  adminOrderCancel,
  adminOrderLabel,
  adminOrderRefund,
  adminOrderRetry,
  adminOrderStatus,
  adminPackingSlips,
} from '@/features/admin/orders/order-routes.server';
import { MAX_SLIPS } from '@/features/admin/orders/packing-slips.server';
import { labelJob, orderChangeEmailJob } from '@/features/checkout/fulfilment.server';
import { recordOrder } from '@/features/checkout/order.server';
import { handlePaymentEvent } from '@/features/checkout/payment-events.server';
import { quoteRates } from '@/features/checkout/rates.server';
import { startCheckout } from '@/features/checkout/start-checkout.server';
import { orderNumber } from '@/features/orders/orders';
import { listOrders } from '@/features/orders/orders.server';
import { submitReview } from '@/features/reviews/reviews.server';
import type { CookieJar } from '@/server/auth/auth.port';
import { createBuiltInAuth, SESSION_COOKIE } from '@/server/auth/builtin.server';
import { asService, asShopper, type ShopperClaims } from '@/server/db/roles.server';
import type { MailMessage } from '@/server/mail/mail.port';
import { MAX_ATTEMPTS } from '@/server/outbox/outbox.server';
import { PaymentsError, type PaymentsPort } from '@/server/payments/payments.port';
import { createTestProcessor, signTestWebhook } from '@/server/payments/test-processor.server';
import { createRateTableShipping } from '@/server/shipping/rate-table.server';
import { loadCatalogueIndex } from '../unit/load-catalogue';
import { drawnText } from '../unit/pdf-text';
import { browser } from './browser';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
const catalogue = loadCatalogueIndex();
const SHOP = 'http://shop.test';
const PASSWORD = 'lavender-fields';
const OWNER = 'owner@admins.example';
const card = { number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' };
const soap = { productId: 7, quantity: 1, selectedColor: null, selectedSize: null };
const oil = { productId: 6, quantity: 2, selectedColor: null, selectedSize: null };

const auth = () => createBuiltInAuth({ db, secureCookies: false });
const payments = () => createTestProcessor(db);
let nudges = 0;
const deps = (over: Partial<AdminOrderDeps> = {}): AdminOrderDeps => ({
  db,
  auth: auth(),
  adminEmails: [OWNER],
  payments: payments(),
  nudgeOutbox: () => {
    nudges++;
  },
  timeZone: 'America/New_York',
  catalogue: async () => catalogue,
  ...over,
});

let n = 0;
interface Account {
  id: string;
  email: string;
  claims: ShopperClaims;
  /** A browser signed in as this account. */
  jar: () => CookieJar;
}

/** A verified account of the built-in accounts, signed in once. */
async function signedIn(email = `shopper.${++n}.${Date.now()}@example.com`): Promise<Account> {
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

let owner: Account | undefined;
async function admin(): Promise<Account> {
  owner ??= await signedIn(OWNER);
  return owner;
}

/** An order bought through the checkout and paid with a card that succeeds (a guest's when `userId` is null). */
type Line = { productId: number; quantity: number; selectedColor: string | null; selectedSize: string | null };
async function buy(
  userId: string | null = null,
  name = 'Grace Hopper',
  email = 'grace@example.com',
  lines: Line[] = [soap],
  discountCode?: string,
) {
  const processor = payments();
  const address = { name, email, street1: '12 Bull St', city: 'Savannah', state: 'GA', zip: '31401', country: 'US' as const };
  const quoted = await quoteRates(db, createRateTableShipping(), catalogue, { toAddress: address, lines });
  if (!quoted.ok) throw new Error(quoted.message);
  const rate = quoted.rates[0];
  if (!rate) throw new Error('no rate');
  const started = await startCheckout(db, processor, catalogue, userId, {
    lines,
    address,
    rateId: rate.id,
    ...(discountCode ? { discountCode } : {}),
  });
  if (!started.ok) throw new Error(started.message);
  await processor.confirm(started.clientSecret, card);
  const recorded = await recordOrder(db, processor, started.paymentIntentId, { userId });
  if (!recorded.ok) throw new Error(recorded.message);
  return { id: recorded.order.id, intentId: started.paymentIntentId, totalCents: started.amountCents };
}

const request = (body: unknown = {}) =>
  new Request(`${SHOP}/api/admin/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function read(response: Response | Promise<Response>) {
  const res = await response;
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, body: type.includes('json') ? await res.json() : null, type };
}

/** Everything an admin action could change about an order, to show a refused call changed nothing. */
async function stateOf(orderId: string, intentId: string) {
  const [row] = await db.query<Record<string, unknown>>(
    `select o.status,
       (select count(*)::int from public.order_refunds r where r.order_id = o.id) as refunds,
       (select count(*)::int from public.test_refunds t where t.intent_id = $2) as processor_refunds,
       (select count(*)::int from public.admin_actions a where a.target like '%' || $1::text || '%') as actions,
       (select json_agg(json_build_object('key', b.dedupe_key, 'attempts', b.attempts, 'error', b.last_error) order by b.id)
          from public.outbox b where b.dedupe_key like '%' || $1::text) as jobs
     from public.orders o where o.id = $1::uuid`,
    [orderId, intentId],
  );
  return row;
}

const actionsFor = (orderId: string) =>
  db.query<{ action: string; admin_email: string; before: unknown; after: unknown }>(
    `select action, admin_email, before, after from public.admin_actions where target like '%' || $1 || '%' order by id`,
    [orderId],
  );

/** Makes one of the order's jobs look like it failed `attempts` times. */
const failJob = (key: string, attempts = 3) =>
  db.query<{ id: string }>(
    `update public.outbox set attempts = $2, last_error = 'Shippo answered 503', next_attempt_at = now() + interval '1 hour'
     where dedupe_key = $1 returning id::text as id`,
    [key, attempts],
  );

describe(`who may use the admin's order endpoints on ${TEST_DATABASE_KIND}`, () => {
  it('a guest and a shopper (even the order’s own) get 404 from each of them, and nothing changes', async () => {
    const shopper = await signedIn();
    const order = await buy(shopper.id);
    const [job] = await failJob(`label:${order.id}`);
    const before = await stateOf(order.id, order.intentId);
    for (const jar of [browser(), shopper.jar()]) {
      const calls = [
        adminOrderStatus(deps(), request({ from: 'processing', to: 'shipped' }), jar, order.id),
        adminOrderRefund(deps(), request({}), jar, order.id),
        adminOrderCancel(deps(), request({}), jar, order.id),
        adminOrderRetry(deps(), request({ jobId: job?.id }), jar, order.id),
        adminOrderLabel(deps(), jar, order.id),
        adminPackingSlips(deps(), jar, new Request(`${SHOP}/api/admin/packing-slips?id=${order.id}`)),
      ];
      for (const call of calls) expect(await read(call)).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
    }
    expect(await stateOf(order.id, order.intentId)).toEqual(before);
  });
});

describe(`an order's status on ${TEST_DATABASE_KIND}`, () => {
  it('goes processing → shipped → delivered, one admin action each, and the shopper’s history shows it', async () => {
    const me = await admin();
    const shopper = await signedIn();
    const order = await buy(shopper.id);
    const nudged = nudges;
    expect(await read(adminOrderStatus(deps(), request({ from: 'processing', to: 'shipped' }), me.jar(), order.id))).toEqual({
      status: 200,
      type: expect.stringContaining('json'),
      body: { changed: true, status: 'shipped', refundedCents: 0, message: `Order ${orderNumber(order.id)} is Shipped.` },
    });
    expect(nudges).toBe(nudged + 1);
    const [history] = await asShopper(db, shopper.claims, (tx) => listOrders(tx, catalogue));
    expect(history?.status).toBe('shipped');
    expect(
      (await read(adminOrderStatus(deps(), request({ from: 'shipped', to: 'delivered' }), me.jar(), order.id))).body,
    ).toMatchObject({
      changed: true,
      status: 'delivered',
    });
    expect(await actionsFor(order.id)).toEqual([
      { action: 'order.status', admin_email: OWNER, before: 'processing', after: 'shipped' },
      { action: 'order.status', admin_email: OWNER, before: 'shipped', after: 'delivered' },
    ]);
  });

  it('marking it shipped queues the shopper’s shipped e-mail once, with the order page’s token', async () => {
    const me = await admin();
    const order = await buy();
    await read(adminOrderStatus(deps(), request({ from: 'processing', to: 'shipped' }), me.jar(), order.id));
    const jobs = await db.query<{ kind: string; payload: { orderId: string; accessToken?: string } }>(
      `select kind, payload from public.outbox where dedupe_key = $1`,
      [`mail:shipped:${order.id}`],
    );
    const [confirmation] = await db.query<{ token: string }>(
      `select payload ->> 'accessToken' as token from public.outbox where dedupe_key = $1`,
      [`mail:customer:${order.id}`],
    );
    expect(jobs).toEqual([{ kind: 'order-shipped-email', payload: { orderId: order.id, accessToken: confirmation?.token } }]);
    const detail = await asService(db, (tx) => orderForAdmin(tx, order.id));
    expect(detail?.jobs.map((j) => j.label)).toContain('Shipped e-mail to the customer');
  });

  it('under 10 simultaneous clicks changes once, records one action and queues one e-mail', async () => {
    const me = await admin();
    const order = await buy();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        read(adminOrderStatus(deps(), request({ from: 'processing', to: 'shipped' }), me.jar(), order.id)),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers.filter((a) => a.body.changed)).toHaveLength(1);
    expect(answers.every((a) => a.body.status === 'shipped')).toBe(true);
    expect(await actionsFor(order.id)).toHaveLength(1);
    const mails = await db.query(`select id from public.outbox where dedupe_key = $1`, [`mail:shipped:${order.id}`]);
    expect(mails).toHaveLength(1);
  });

  it('refuses the changes that are not allowed, saying why, and changes nothing', async () => {
    const me = await admin();
    const order = await buy();
    const call = (body: unknown) => read(adminOrderStatus(deps(), request(body), me.jar(), order.id));
    expect(await call({ from: 'processing', to: 'delivered' })).toMatchObject({
      status: 400,
      body: {
        error: { code: 'invalid_transition', message: 'A processing order can become Shipped or Cancelled, not Delivered.' },
      },
    });
    expect(await call({ from: 'processing', to: 'cancelled' })).toMatchObject({
      status: 400,
      body: { error: { message: expect.stringContaining('/cancel, which refunds it') } },
    });
    await call({ from: 'processing', to: 'shipped' });
    const shipped = await stateOf(order.id, order.intentId);
    expect(await call({ from: 'shipped', to: 'processing' })).toMatchObject({ status: 400 });
    expect(await read(adminOrderCancel(deps(), request(), me.jar(), order.id))).toMatchObject({
      status: 409,
      body: { error: { code: 'invalid_transition', message: 'Only an order that has not shipped can be cancelled.' } },
    });
    expect(await stateOf(order.id, order.intentId)).toEqual(shipped);
    // A second click on the same button finds the work done: nothing changes, nothing is recorded.
    expect(await call({ from: 'processing', to: 'shipped' })).toMatchObject({ status: 200, body: { changed: false } });
    await call({ from: 'shipped', to: 'delivered' });
    expect(await call({ from: 'shipped', to: 'delivered' })).toMatchObject({ status: 200, body: { changed: false } });
    expect(await call({ from: 'delivered', to: 'shipped' })).toMatchObject({
      status: 400,
      body: { error: { message: 'A delivered order is final: its status cannot change.' } },
    });
    const delivered = await stateOf(order.id, order.intentId);
    expect(delivered).toEqual({ ...shipped, status: 'delivered', actions: 2 });
    expect(await read(adminOrderCancel(deps(), request(), me.jar(), order.id))).toMatchObject({
      status: 409,
      body: { error: { code: 'invalid_transition', message: 'A delivered order is final: its status cannot change.' } },
    });
    expect(await stateOf(order.id, order.intentId)).toEqual(delivered);
    expect(NEXT_STATUSES.delivered).toEqual([]);
  });

  it('answers 409 when the order moved on since the admin saw it', async () => {
    const me = await admin();
    const order = await buy();
    await read(adminOrderStatus(deps(), request({ from: 'processing', to: 'shipped' }), me.jar(), order.id));
    await read(adminOrderStatus(deps(), request({ from: 'shipped', to: 'delivered' }), me.jar(), order.id));
    expect(
      await read(adminOrderStatus(deps(), request({ from: 'processing', to: 'shipped' }), me.jar(), order.id)),
    ).toMatchObject({
      status: 409,
      body: { error: { code: 'status_changed', message: expect.stringMatching(/^The order is Delivered now, not Processing/) } },
    });
    expect(
      await read(adminOrderStatus(deps(), request({ from: 'processing', to: 'shipped' }), me.jar(), crypto.randomUUID())),
    ).toMatchObject({
      status: 404,
    });
  });
});

describe(`refunds on ${TEST_DATABASE_KIND}`, () => {
  it('a full refund under 10 simultaneous clicks: one refund at the processor, one recorded, one admin action', async () => {
    const me = await admin();
    const order = await buy();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => read(adminOrderRefund(deps(), request({}), me.jar(), order.id))),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers.filter((a) => a.body.changed)).toHaveLength(1);
    expect(answers.every((a) => a.body.refundedCents === order.totalCents)).toBe(true);
    const state = await stateOf(order.id, order.intentId);
    expect(state).toMatchObject({ status: 'processing', refunds: 1, processor_refunds: 1, actions: 1 });
    expect(await actionsFor(order.id)).toEqual([
      {
        action: 'order.refund',
        admin_email: OWNER,
        before: { refundedCents: 0 },
        after: { refundedCents: order.totalCents, refundId: expect.stringMatching(/^re_test_/), refundStatus: 'succeeded' },
      },
    ]);
    // A click after the full refund changes nothing.
    expect(await read(adminOrderRefund(deps(), request({}), me.jar(), order.id))).toMatchObject({
      status: 200,
      body: { changed: false, message: 'This order has been refunded in full.' },
    });
    expect(await stateOf(order.id, order.intentId)).toEqual(state);
  });

  it('refunds part, then the rest; never more than is left', async () => {
    const me = await admin();
    const order = await buy();
    expect((await read(adminOrderRefund(deps(), request({ amountCents: 500 }), me.jar(), order.id))).body).toMatchObject({
      changed: true,
      refundedCents: 500,
      message: 'Refunded $5.00.',
    });
    expect(await read(adminOrderRefund(deps(), request({ amountCents: order.totalCents }), me.jar(), order.id))).toMatchObject({
      status: 400,
      body: { error: { code: 'amount_too_large' } },
    });
    expect(await read(adminOrderRefund(deps(), request({ amountCents: 1.5 }), me.jar(), order.id))).toMatchObject({
      status: 400,
    });
    expect((await read(adminOrderRefund(deps(), request({}), me.jar(), order.id))).body).toMatchObject({
      changed: true,
      refundedCents: order.totalCents,
    });
    const detail = await asService(db, (tx) => orderForAdmin(tx, order.id));
    expect(detail?.refunds.map((r) => r.amountCents)).toEqual([500, order.totalCents - 500]);
    expect(detail?.refunds.every((r) => r.adminEmail === OWNER)).toBe(true);
    expect(await actionsFor(order.id)).toHaveLength(2);
  });

  it('refunds lines of a discounted order: what was paid for them, net of their discount share, with the tax on that', async () => {
    const me = await admin();
    await db.query(`insert into public.discount_codes (code, kind, percent) values ('REFUND20', 'percent', 20)`);
    const order = await buy(null, 'Grace Hopper', 'grace@example.com', [soap, oil], 'REFUND20');
    const items = await db.query<{
      id: string;
      product_id: number;
      price_cents: number;
      quantity: number;
      discount_cents: number;
    }>(
      `select id::text, product_id, price_cents, quantity, discount_cents from public.order_items where order_id = $1 order by id`,
      [order.id],
    );
    const oilLine = items.find((i) => i.product_id === 6);
    const soapLine = items.find((i) => i.product_id === 7);
    if (!oilLine || !soapLine) throw new Error('no lines');
    expect(oilLine.discount_cents).toBeGreaterThan(0);
    // One of the two oils: its price less half the line's discount (rounded down), and 8.9 % tax on that.
    const oneOil = oilLine.price_cents - Math.floor(oilLine.discount_cents / 2);
    const first = await read(
      adminOrderRefund(deps(), request({ lines: [{ itemId: oilLine.id, quantity: 1 }] }), me.jar(), order.id),
    );
    expect(first).toMatchObject({ status: 200, body: { changed: true, refundedCents: oneOil + Math.round(oneOil * 0.089) } });
    // More than is left of a line is refused in words, and changes nothing.
    expect(
      await read(adminOrderRefund(deps(), request({ lines: [{ itemId: oilLine.id, quantity: 2 }] }), me.jar(), order.id)),
    ).toMatchObject({ status: 400, body: { error: { code: 'invalid_lines', message: expect.stringContaining('At most 1') } } });
    expect(
      await read(
        adminOrderRefund(deps(), request({ amountCents: 5, lines: [{ itemId: oilLine.id, quantity: 1 }] }), me.jar(), order.id),
      ),
    ).toMatchObject({ status: 400 });
    expect(
      await read(
        adminOrderRefund(deps(), request({ restock: true, lines: [{ itemId: oilLine.id, quantity: 1 }] }), me.jar(), order.id),
      ),
    ).toMatchObject({ status: 400 });
    // The rest of the lines: together every refund gives back all the goods less the discount, and exactly the order's tax.
    await read(
      adminOrderRefund(
        deps(),
        request({
          lines: [
            { itemId: oilLine.id, quantity: 1 },
            { itemId: soapLine.id, quantity: 1 },
          ],
        }),
        me.jar(),
        order.id,
      ),
    );
    const [money] = await db.query<{ refunded: number; goods: number; tax: number; shipping: number; total: number }>(
      `select (select sum(amount_cents)::int from public.order_refunds where order_id = o.id) as refunded,
              o.subtotal_cents - o.discount_cents as goods, o.tax_cents as tax, o.shipping_cents as shipping, o.total_cents as total
         from public.orders o where o.id = $1`,
      [order.id],
    );
    expect(money?.refunded).toBe((money?.goods ?? 0) + (money?.tax ?? 0));
    expect(money?.refunded).toBe((money?.total ?? 0) - (money?.shipping ?? 0));
  });

  it('tells the shopper of each refund and of a cancellation, once each, through the outbox', async () => {
    const me = await admin();
    const sent: MailMessage[] = [];
    const job = orderChangeEmailJob({ db, mail: { name: 'recorder', send: async (m) => void sent.push(m) }, publicOrigin: SHOP });
    const jobs = async (orderId: string) =>
      (
        await db.query<{ dedupe_key: string; payload: string }>(
          `select dedupe_key, payload::text as payload from public.outbox where kind = 'order-change-email' and dedupe_key like $1 order by id`,
          [`%${orderId}%`],
        )
      ).map((r) => ({ key: r.dedupe_key, payload: JSON.parse(r.payload) as Parameters<typeof job>[0] }));

    const refunded = await buy();
    await read(adminOrderRefund(deps(), request({ amountCents: 500 }), me.jar(), refunded.id));
    await read(adminOrderRefund(deps(), request({ amountCents: 500 }), me.jar(), refunded.id));
    const refundJobs = await jobs(refunded.id);
    expect(refundJobs).toHaveLength(2);
    for (const { payload } of refundJobs) await job(payload);
    expect(sent.map((m) => [m.to, m.subject])).toEqual([
      ['grace@example.com', `Your Aurelia order ${orderNumber(refunded.id)}: $5.00 refunded`],
      ['grace@example.com', `Your Aurelia order ${orderNumber(refunded.id)}: $5.00 refunded`],
    ]);
    expect(sent[1]?.text).toContain(`In all, $10.00 of $${(refunded.totalCents / 100).toFixed(2)} has been refunded`);
    expect(sent[0]?.html).toContain(`${SHOP}/order?token=`);

    const cancelled = await buy();
    await read(adminOrderCancel(deps(), request(), me.jar(), cancelled.id));
    await read(adminOrderCancel(deps(), request(), me.jar(), cancelled.id));
    const cancelJobs = await jobs(cancelled.id);
    expect(cancelJobs.map((j) => j.key)).toEqual([`mail:cancelled:${cancelled.id}`]);
    sent.length = 0;
    await job(cancelJobs[0]?.payload as Parameters<typeof job>[0]);
    expect(sent.map((m) => m.subject)).toEqual([`Your Aurelia order ${orderNumber(cancelled.id)} is cancelled`]);
    expect(sent[0]?.text).toContain(`$${(cancelled.totalCents / 100).toFixed(2)} is on its way back to your card.`);
  });

  it('when the processor refuses, nothing changes and the admin reads its message', async () => {
    const me = await admin();
    const order = await buy();
    const before = await stateOf(order.id, order.intentId);
    const refusing: PaymentsPort = {
      ...payments(),
      refund: async () => {
        throw new PaymentsError('charge_disputed', 'Charge ch_1 has been charged back; cannot issue a refund.');
      },
    };
    for (const call of [adminOrderRefund, adminOrderCancel]) {
      expect(await read(call(deps({ payments: refusing }), request({}), me.jar(), order.id))).toMatchObject({
        status: 409,
        body: {
          error: {
            code: 'charge_disputed',
            message: 'The payment processor refused the refund: Charge ch_1 has been charged back; cannot issue a refund.',
          },
        },
      });
    }
    expect(await stateOf(order.id, order.intentId)).toEqual(before);
  });
});

describe(`a refund the processor reports as failed on ${TEST_DATABASE_KIND}`, () => {
  /** The test processor, except that its first refund comes back failed (as a card that is closed can); keys kept. */
  function failingOnce() {
    const keys: string[] = [];
    const processor = payments();
    let failed = false;
    const port: PaymentsPort = {
      ...processor,
      async refund(input) {
        keys.push(input.idempotencyKey);
        if (failed) return processor.refund(input);
        failed = true;
        return { id: `re_failed_${input.idempotencyKey}`, amountCents: input.amountCents ?? 100, status: 'failed' };
      },
    };
    return { port, keys };
  }

  for (const [name, call] of [
    ['a refund', adminOrderRefund],
    ['a cancel', adminOrderCancel],
  ] as const) {
    it(`${name}: answered 502, nothing counted as refunded, and asking again asks the processor anew`, async () => {
      const me = await admin();
      const order = await buy();
      const { port, keys } = failingOnce();
      expect(await read(call(deps({ payments: port }), request({}), me.jar(), order.id))).toMatchObject({
        status: 502,
        body: { error: { code: 'refund_failed', message: 'The payment processor reports the refund as failed.' } },
      });
      expect(await stateOf(order.id, order.intentId)).toMatchObject({ status: 'processing', processor_refunds: 0 });
      // The failed attempt is in the admin's activity, as what it was.
      expect((await actionsFor(order.id)).map((a) => [a.action, a.after])).toEqual([
        ['order.refund', { refundedCents: 0, refundId: expect.stringMatching(/^re_failed_/), refundStatus: 'failed' }],
      ]);
      // The admin tries again: a new refund, not the processor's memory of the failed one under the same key.
      const again = await read(call(deps({ payments: port }), request({}), me.jar(), order.id));
      expect(again).toMatchObject({ status: 200, body: { changed: true, refundedCents: order.totalCents } });
      expect(new Set(keys).size).toBe(2);
      expect(await stateOf(order.id, order.intentId)).toMatchObject({
        status: call === adminOrderCancel ? 'cancelled' : 'processing',
        processor_refunds: 1,
      });
    });
  }
});

describe(`a refund that fails days later, as the processor's webhook reports, on ${TEST_DATABASE_KIND}`, () => {
  const SECRET = 'whsec_admin_orders';
  const refundEvent = (id: string, refund: { id: string; status: string; amount: number; payment_intent: string }) => {
    const body = JSON.stringify({ id, type: 'refund.updated', data: { object: { object: 'refund', ...refund } } });
    return [body, signTestWebhook(body, SECRET)] as const;
  };

  it('is no longer counted as refunded, so the admin can refund again; a late or replayed event changes nothing', async () => {
    const me = await admin();
    const order = await buy();
    const processor = createTestProcessor(db, { webhookSecret: SECRET });
    await read(adminOrderRefund(deps({ payments: processor }), request({}), me.jar(), order.id));
    const refundedCents = async () => (await asService(db, (tx) => orderForAdmin(tx, order.id)))?.refundedCents;
    expect(await refundedCents()).toBe(order.totalCents);
    const [{ refund_id: refundId } = { refund_id: '' }] = await db.query<{ refund_id: string }>(
      `select refund_id from public.order_refunds where order_id = $1`,
      [order.id],
    );
    // The processor's side: the bank sent the money back, so the refund failed.
    await db.query(`update public.test_refunds set status = 'failed' where id = $1`, [refundId]);
    const failed = refundEvent(`evt_failed_${refundId}`, {
      id: refundId,
      status: 'failed',
      amount: order.totalCents,
      payment_intent: order.intentId,
    });
    expect(await handlePaymentEvent(db, processor, ...failed)).toEqual({ status: 200, body: { received: true } });
    expect(await refundedCents()).toBe(0);
    const detail = await asService(db, (tx) => orderForAdmin(tx, order.id));
    expect(detail?.refunds).toEqual([expect.objectContaining({ id: refundId, status: 'failed' })]);

    // An older event, still saying pending, arriving late does not bring it back; nor does a replay.
    const late = refundEvent(`evt_pending_${refundId}`, {
      id: refundId,
      status: 'pending',
      amount: order.totalCents,
      payment_intent: order.intentId,
    });
    expect(await handlePaymentEvent(db, processor, ...late)).toEqual({ status: 200, body: { received: true } });
    expect(await handlePaymentEvent(db, processor, ...failed)).toMatchObject({ body: { duplicate: true } });
    expect(await refundedCents()).toBe(0);

    // The admin refunds the whole order again: a new refund, not the processor's memory of the failed one.
    expect((await read(adminOrderRefund(deps({ payments: processor }), request({}), me.jar(), order.id))).body).toMatchObject({
      changed: true,
      refundedCents: order.totalCents,
    });
    const refunds = await db.query<{ status: string }>(
      `select status from public.test_refunds where intent_id = $1 order by created_at`,
      [order.intentId],
    );
    expect(refunds.map((r) => r.status)).toEqual(['failed', 'succeeded']);
  });

  it('an event about a refund this shop did not make (one made in the processor’s dashboard) changes nothing', async () => {
    const processor = createTestProcessor(db, { webhookSecret: SECRET });
    const before = await db.query(`select * from public.order_refunds order by refund_id`);
    const event = refundEvent('evt_elsewhere', {
      id: 're_test_elsewhere',
      status: 'failed',
      amount: 100,
      payment_intent: 'pi_x',
    });
    expect(await handlePaymentEvent(db, processor, ...event)).toEqual({ status: 200, body: { received: true } });
    expect(await db.query(`select * from public.order_refunds order by refund_id`)).toEqual(before);
  });
});

describe(`cancelling with a refund on ${TEST_DATABASE_KIND}`, () => {
  it('refunds, then cancels, once under 10 simultaneous clicks; the shopper’s history shows it cancelled', async () => {
    const me = await admin();
    const shopper = await signedIn();
    const order = await buy(shopper.id);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => read(adminOrderCancel(deps(), request(), me.jar(), order.id))),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers.filter((a) => a.body.changed)).toHaveLength(1);
    expect(answers.find((a) => a.body.changed)?.body.message).toMatch(/is cancelled and \$\d+\.\d\d refunded\.$/);
    expect(await stateOf(order.id, order.intentId)).toMatchObject({
      status: 'cancelled',
      refunds: 1,
      processor_refunds: 1,
      actions: 1,
    });
    expect(await actionsFor(order.id)).toEqual([
      {
        action: 'order.cancel',
        admin_email: OWNER,
        before: { status: 'processing', refundedCents: 0 },
        after: { status: 'cancelled', refundedCents: order.totalCents, refundId: expect.stringMatching(/^re_test_/) },
      },
    ]);
    const [history] = await asShopper(db, shopper.claims, (tx) => listOrders(tx, catalogue));
    expect(history?.status).toBe('cancelled');
  });

  it('cancels an order already refunded in full without asking the processor again', async () => {
    const me = await admin();
    const order = await buy();
    await read(adminOrderRefund(deps(), request({}), me.jar(), order.id));
    expect((await read(adminOrderCancel(deps(), request(), me.jar(), order.id))).body).toMatchObject({
      changed: true,
      status: 'cancelled',
      message: `Order ${orderNumber(order.id)} is cancelled.`,
    });
    expect(await stateOf(order.id, order.intentId)).toMatchObject({ processor_refunds: 1, actions: 2 });
  });

  it('a cancelled order no longer makes its buyer’s reviews verified purchases', async () => {
    const me = await admin();
    const shopper = await signedIn();
    const order = await buy(shopper.id, 'Ann Lee', shopper.email, [oil]);
    const review = () =>
      asShopper(db, shopper.claims, (tx) =>
        submitReview(tx, catalogue, { productId: oil.productId, rating: 5, comment: 'Lovely oil' }),
      );
    const before = await review();
    expect(before.ok && before.review.verified).toBe(true);
    await read(adminOrderCancel(deps(), request(), me.jar(), order.id));
    const after = await review();
    expect(after.ok && after.review.verified).toBe(false);
  });
});

describe(`an order's jobs on ${TEST_DATABASE_KIND}`, () => {
  it('a failed or given-up job is sent back to the worker once, recorded, and the outbox nudged', async () => {
    const me = await admin();
    const order = await buy();
    const [label] = await failJob(`label:${order.id}`, MAX_ATTEMPTS);
    const detail = await asService(db, (tx) => orderForAdmin(tx, order.id));
    expect(detail?.jobs.find((j) => j.id === label?.id)).toMatchObject({
      label: 'Shipping label',
      state: 'failed',
      attempts: MAX_ATTEMPTS,
      lastError: 'Shippo answered 503',
    });
    const nudged = nudges;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => read(adminOrderRetry(deps(), request({ jobId: label?.id }), me.jar(), order.id))),
    );
    expect(answers.filter((a) => a.body.changed)).toHaveLength(1);
    expect(answers.find((a) => a.body.changed)?.body.job).toMatchObject({ state: 'waiting', attempts: 0, lastError: null });
    expect(nudges).toBe(nudged + 1);
    const [job] = await db.query<{ attempts: number; due: boolean }>(
      `select attempts, next_attempt_at <= now() as due from public.outbox where id = $1::bigint`,
      [label?.id],
    );
    expect(job).toEqual({ attempts: 0, due: true });
    expect(await actionsFor(order.id)).toEqual([
      {
        action: 'order.job-retry',
        admin_email: OWNER,
        before: { job: 'Shipping label', attempts: MAX_ATTEMPTS, lastError: 'Shippo answered 503' },
        after: { job: 'Shipping label', attempts: 0 },
      },
    ]);
  });

  it('leaves a job that did not fail alone, and knows no job of another order', async () => {
    const me = await admin();
    const order = await buy();
    const other = await buy();
    const [mine] = await db.query<{ id: string }>(`select id::text as id from public.outbox where dedupe_key = $1`, [
      `mail:shop:${order.id}`,
    ]);
    expect((await read(adminOrderRetry(deps(), request({ jobId: mine?.id }), me.jar(), order.id))).body).toMatchObject({
      changed: false,
    });
    expect(await read(adminOrderRetry(deps(), request({ jobId: mine?.id }), me.jar(), other.id))).toMatchObject({ status: 404 });
    expect(await read(adminOrderRetry(deps(), request({ jobId: 'x' }), me.jar(), order.id))).toMatchObject({ status: 400 });
    expect(await actionsFor(order.id)).toEqual([]);
  });
});

describe(`labels on ${TEST_DATABASE_KIND}`, () => {
  it('the admin downloads the label PDF the shop drew; 404 before there is one', async () => {
    const me = await admin();
    const order = await buy();
    expect(await read(adminOrderLabel(deps(), me.jar(), order.id))).toMatchObject({ status: 404 });
    await labelJob({ db, shipping: createRateTableShipping(), publicOrigin: SHOP })({ orderId: order.id });
    const res = await adminOrderLabel(deps(), me.jar(), order.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(new TextDecoder().decode((await res.arrayBuffer()).slice(0, 5))).toBe('%PDF-');
    const detail = await asService(db, (tx) => orderForAdmin(tx, order.id));
    expect(detail).toMatchObject({ label: { kind: 'pdf' }, trackingNumber: expect.stringMatching(/^TEST/) });
  });
});

describe(`packing slips on ${TEST_DATABASE_KIND}`, () => {
  const slips = (jar: CookieJar, ...ids: string[]) =>
    adminPackingSlips(deps(), jar, new Request(`${SHOP}/api/admin/packing-slips?${ids.map((id) => `id=${id}`).join('&')}`));

  it('one PDF, a page per ticked order in the order ticked: number, ship-to, items with SKU, shown colour, size and quantity', async () => {
    const me = await admin();
    const first = await buy(null, 'Grace Hopper', 'grace@example.com', [soap, oil]);
    const second = await buy(null, 'Grace Hopper', 'grace@example.com', [
      { productId: 3, quantity: 2, selectedColor: 'powder-blue', selectedSize: 'M' },
    ]);
    const res = await slips(me.jar(), second.id, first.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect((await PDFDocument.load(bytes)).getPageCount()).toBe(2);
    const text = drawnText(bytes);
    const [a, b] = [text.indexOf(`Order ${orderNumber(second.id)}`), text.indexOf(`Order ${orderNumber(first.id)}`)];
    expect(a).toBeGreaterThanOrEqual(0);
    expect(b).toBeGreaterThan(a);
    expect(text).toEqual(expect.arrayContaining(['PACKING SLIP', 'SHIP TO', 'Grace Hopper', '12 Bull St', 'Savannah, GA 31401']));
    expect(text).toEqual(
      expect.arrayContaining(['Clinical Scrubs', 'Powder Blue, M', '2', 'Kojic Acid Soap', 'Thank you, Grace Hopper.']),
    );
    // The colour as the shop shows it, never its internal key; the SKU the packer picks by.
    expect(text).not.toContain('powder-blue, M');
    expect(text).toEqual(expect.arrayContaining([`SKU ${catalogue.get(3)?.sku}`, `SKU ${catalogue.get(7)?.sku}`]));
    // No prices: a slip travels with gifts too.
    expect(text.join(' ')).not.toMatch(/\$\d/);
  });

  it('refuses no order, a malformed id and too many at once, and names an order that does not exist', async () => {
    const me = await admin();
    const order = await buy();
    expect(await read(slips(me.jar()))).toMatchObject({
      status: 400,
      body: { error: { message: 'Tick the orders to print packing slips for.' } },
    });
    expect(await read(slips(me.jar(), 'nope'))).toMatchObject({
      status: 400,
      body: { error: { message: 'Each id must be an order id.' } },
    });
    expect(await read(slips(me.jar(), ...Array.from({ length: MAX_SLIPS + 1 }, () => order.id)))).toMatchObject({
      status: 400,
      body: { error: { message: `Print at most ${MAX_SLIPS} packing slips at a time.` } },
    });
    // The list's form sent with nothing ticked goes back to the list, which says what to do.
    const page = await adminPackingSlips(
      deps(),
      me.jar(),
      new Request(`${SHOP}/api/admin/packing-slips`, { headers: { accept: 'text/html,*/*' } }),
    );
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/admin/orders?slips=none');
    const ghost = '00000000-0000-4000-8000-000000000000';
    expect(await read(slips(me.jar(), order.id, ghost))).toMatchObject({
      status: 404,
      body: { error: { message: `No such order: ${ghost}.` } },
    });
  });
});

describe(`the order list on ${TEST_DATABASE_KIND}`, () => {
  const list = (q: string, extra: { status?: 'shipped'; from?: string; to?: string } = {}, limit = 25) =>
    asService(db, (tx) =>
      listOrdersForAdmin(tx, { q, status: extra.status ?? null, from: extra.from ?? null, to: extra.to ?? null }, { limit }),
    );

  it('finds an order by the number shoppers see, by e-mail and by name, taking % and _ literally', async () => {
    const tag = `t${Date.now()}`;
    const percent = await buy(null, `Ann 100% ${tag}`, `ann.${tag}@example.com`);
    const plain = await buy(null, `Ann 1000 ${tag}`, `bea_${tag}@example.com`);
    expect((await list(orderNumber(percent.id))).rows.map((r) => r.id)).toEqual([percent.id]);
    expect((await list(orderNumber(percent.id).toLowerCase())).rows.map((r) => r.id)).toEqual([percent.id]);
    expect((await list(percent.id)).rows.map((r) => r.id)).toEqual([percent.id]);
    expect((await list('100%')).rows.map((r) => r.id)).toEqual([percent.id]);
    expect((await list(`bea_${tag}`)).rows.map((r) => r.id)).toEqual([plain.id]);
    expect((await list(`_${tag}`)).rows.map((r) => r.id)).toEqual([plain.id]);
    expect((await list(`ANN.${tag.toUpperCase()}`)).rows.map((r) => r.id)).toEqual([percent.id]);
    expect((await list(tag)).rows.map((r) => r.id)).toEqual([plain.id, percent.id]);
  });

  it('filters by days in the shop’s time zone', async () => {
    const tag = `tz${Date.now()}`;
    const late = await buy(null, `Late ${tag}`, `late.${tag}@example.com`);
    // 11 pm on November 24 in New York is November 25 in UTC.
    await db.query(`update public.orders set created_at = '2026-11-25T04:00:00Z' where id = $1`, [late.id]);
    const on = (day: string, timeZone: string) =>
      asService(db, (tx) => listOrdersForAdmin(tx, { q: tag, status: null, from: day, to: day }, { limit: 10, timeZone })).then(
        (page) => page.rows.map((r) => r.id),
      );
    expect(await on('2026-11-24', 'America/New_York')).toEqual([late.id]);
    expect(await on('2026-11-25', 'America/New_York')).toEqual([]);
    expect(await on('2026-11-25', 'UTC')).toEqual([late.id]);
  });

  it('filters by status and date, newest first, a page at a time', async () => {
    const me = await admin();
    const tag = `p${Date.now()}`;
    const orders = [];
    for (let i = 0; i < 3; i++) orders.push(await buy(null, `Page ${tag}`, `page.${i}.${tag}@example.com`));
    const [first, second, third] = orders;
    // Placed in the same microsecond: still newest first, in the order they were placed.
    await db.query(
      `update public.orders set created_at = (select created_at from public.orders where id = $1) where id = any($2::uuid[])`,
      [first?.id, orders.map((o) => o.id)],
    );
    await read(adminOrderStatus(deps(), request({ from: 'processing', to: 'shipped' }), me.jar(), second?.id));
    const page1 = await list(tag, {}, 2);
    expect(page1.rows.map((r) => r.id)).toEqual([third?.id, second?.id]);
    expect(page1.next).toBeDefined();
    const page2 = await asService(db, (tx) =>
      listOrdersForAdmin(tx, { q: tag, status: null, from: null, to: null }, { limit: 2, after: page1.next }),
    );
    expect(page2.rows.map((r) => r.id)).toEqual([first?.id]);
    expect(page2.next).toBeUndefined();
    expect((await list(tag, { status: 'shipped' })).rows.map((r) => [r.id, r.status])).toEqual([[second?.id, 'shipped']]);
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect((await list(tag, { from: today, to: today })).rows).toHaveLength(3);
    expect((await list(tag, { to: yesterday })).rows).toHaveLength(0);
    expect(page1.rows[0]).toMatchObject({
      customerName: `Page ${tag}`,
      guest: true,
      items: 1,
      refundedCents: 0,
      status: 'processing',
    });
  });
});
