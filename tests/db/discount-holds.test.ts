/**
 * A code's uses under concurrency (decision 009), on a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL,
 * where concurrent transactions really overlap, and with two servers on one database): a use is held as the payment
 * opens, in the statement that holds the stock, used when the order is recorded, released when the payment fails; held
 * and used uses never pass the code's limit nor a customer's (by account and by normalised e-mail alike); a payment
 * that outlived its hold when the code was used up meanwhile is refunded, not discounted past the limit.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordOrder } from '@/features/checkout/order.server';
import { handlePaymentEvent, releasePayment } from '@/features/checkout/payment-events.server';
import { quoteRates } from '@/features/checkout/rates.server';
import { type PaymentIntentBody, startCheckout } from '@/features/checkout/start-checkout.server';
import { DISCOUNT_MESSAGES } from '@/features/discounts/discounts';
import { pruneDiscountHolds } from '@/features/discounts/discounts.server';
import { HOLD_CAP } from '@/features/stock/stock.server';
import type { Database } from '@/server/db/database.server';
import { openPostgres } from '@/server/db/postgres.server';
import { authenticateTestCard, confirmTestCard } from '@/server/payments/test-card-routes.server';
import { createTestProcessor, signTestWebhook } from '@/server/payments/test-processor.server';
import { createRateTableShipping } from '@/server/shipping/rate-table.server';
import { loadCatalogueIndex } from '../unit/load-catalogue';
import { newShopper } from './shopper-fixtures';
import { databaseUrl, suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
const catalogue = loadCatalogueIndex();
const WEBHOOK_SECRET = 'whsec_test_discount_holds';
const payments = createTestProcessor(db, { webhookSecret: WEBHOOK_SECRET });
const card = { number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' };
const address = {
  name: 'Ann Lee',
  email: 'ann.lee@example.com',
  street1: '12 Bull St',
  city: 'Savannah',
  state: 'GA',
  zip: '31401',
  country: 'US' as const,
};
type Line = PaymentIntentBody['lines'][number];
const soap = (quantity = 1): Line => ({ productId: 7, quantity, selectedColor: null, selectedSize: null });
const oil = (quantity = 1): Line => ({ productId: 6, quantity, selectedColor: null, selectedSize: null });

let rateId = '';
async function rate(): Promise<string> {
  if (rateId) return rateId;
  const quoted = await quoteRates(db, createRateTableShipping(), catalogue, { toAddress: address, lines: [soap(1)] });
  if (!quoted.ok) throw new Error(quoted.message);
  rateId = quoted.rates[0]?.id ?? '';
  return rateId;
}

interface Start {
  code?: string | null;
  lines?: Line[];
  email?: string;
  userId?: string | null;
  accountEmail?: string | null;
  previousClientSecret?: string;
  on?: Database;
  /** The client address the request came from, and the shop's ADDRESS_LIMIT_FACTOR. */
  client?: { clientAddress: string; addressLimitFactor: number };
}

/** Opens a checkout's payment as the drawer does, with a code (a guest's unless `userId`). */
async function start({ code, lines = [soap(1)], email = address.email, userId = null, accountEmail = null, ...rest }: Start) {
  const on = rest.on ?? db;
  // The rate is quoted for the parcel of one soap; other carts ask for their own.
  const rateFor = lines.length === 1 && lines[0]?.productId === 7 && lines[0].quantity === 1 ? await rate() : await quote(lines);
  return startCheckout(
    on,
    on === db ? payments : createTestProcessor(on, { webhookSecret: WEBHOOK_SECRET }),
    catalogue,
    userId,
    {
      lines,
      address: { ...address, email },
      rateId: rateFor,
      ...(code !== undefined ? { discountCode: code } : {}),
      ...(rest.previousClientSecret ? { previousClientSecret: rest.previousClientSecret } : {}),
    },
    rest.client,
    accountEmail,
  );
}

async function quote(lines: Line[]) {
  const quoted = await quoteRates(db, createRateTableShipping(), catalogue, { toAddress: address, lines });
  if (!quoted.ok) throw new Error(quoted.message);
  return quoted.rates[0]?.id ?? '';
}

async function opened(options: Start) {
  const result = await start(options);
  if (!result.ok) throw new Error(result.message);
  return result;
}

async function payAndRecord(checkout: { clientSecret: string; paymentIntentId: string }) {
  expect((await payments.confirm(checkout.clientSecret, card)).status).toBe('succeeded');
  const recorded = await recordOrder(db, payments, checkout.paymentIntentId);
  if (!recorded.ok) throw new Error(recorded.message);
  return recorded.order;
}

/** A code as the owner would create it. */
async function code(values: Record<string, unknown>): Promise<string> {
  const name = (values.code as string | undefined) ?? `C${randomUUID().slice(0, 8).toUpperCase()}`;
  const columns = Object.keys(values).filter((k) => k !== 'code');
  await db.query(
    `insert into public.discount_codes (code, ${columns.join(', ')}) values ($1, ${columns.map((_, i) => `$${i + 2}`).join(', ')})`,
    [name, ...columns.map((k) => values[k])],
  );
  return name;
}

const usesOf = (name: string) =>
  db.query<{ state: string; live: boolean; order_id: string | null; email: string; amount_cents: number }>(
    `select r.state, r.expires_at > now() as live, r.order_id, r.email_normalised as email, r.amount_cents
       from public.discount_redemptions r join public.discount_codes c on c.id = r.code_id
      where c.code = $1 order by r.held_at`,
    [name],
  );

const count = async (name: string, state: string) => (await usesOf(name)).filter((u) => u.state === state).length;

beforeEach(async () => {
  await db.query('delete from public.stock_holds');
  await db.query('delete from public.stock_levels');
  await db.query(`update public.discount_offer set active = false`);
});

describe(`a code’s uses on ${TEST_DATABASE_KIND}`, () => {
  it('is held as the payment opens, charged as priced, and used by the order with its share per line', async () => {
    const name = await code({ kind: 'percent', percent: 20, usage_limit: 5 });
    const checkout = await opened({ code: name.toLowerCase(), lines: [soap(2), oil(1)] });
    const goods = 2 * (catalogue.get(7)?.priceCents ?? 0) + (catalogue.get(6)?.priceCents ?? 0);
    const discount = Math.floor((goods * 20 + 50) / 100);
    expect(checkout.totals).toMatchObject({ subtotalCents: goods, discountCents: discount });
    expect(checkout.discount).toMatchObject({ code: name, codeCents: discount, offerCents: 0, freeShipping: false });
    expect((await payments.retrieveIntent(checkout.paymentIntentId)).amountCents).toBe(checkout.totals.totalCents);
    expect(await usesOf(name)).toEqual([
      { state: 'held', live: true, order_id: null, email: 'ann.lee@example.com', amount_cents: discount },
    ]);

    const order = await payAndRecord(checkout);
    expect(await usesOf(name)).toMatchObject([{ state: 'used', order_id: order.id }]);
    const [row] = await db.query<Record<string, unknown>>(
      `select discount_code, discount_cents, total_cents,
              (select json_agg(json_build_object('product', product_id, 'discount', discount_cents) order by product_id)
                 from public.order_items i where i.order_id = o.id) as lines
         from public.orders o where id = $1`,
      [order.id],
    );
    const oilShare = Math.floor((discount * (catalogue.get(6)?.priceCents ?? 0)) / goods);
    expect(row).toMatchObject({ discount_code: name, discount_cents: discount, total_cents: checkout.totals.totalCents });
    const lines = row?.lines as { product: number; discount: number }[];
    expect(lines.reduce((s, l) => s + l.discount, 0)).toBe(discount);
    expect(Math.abs((lines[0]?.discount ?? 0) - oilShare)).toBeLessThanOrEqual(1);
    // Recorded again (the webhook, a retry): still one use.
    await recordOrder(db, payments, checkout.paymentIntentId);
    expect(await count(name, 'used')).toBe(1);
  });

  it('waives shipping with a free-shipping code and keeps what it saved', async () => {
    const name = await code({ kind: 'free_shipping' });
    const checkout = await opened({ code: name });
    expect(checkout.totals.shippingCents).toBe(0);
    expect(checkout.discount).toMatchObject({ freeShipping: true, code: name });
    const [row] = await db.query<{ shipping_discount_cents: number }>(
      `select shipping_discount_cents from public.checkouts where payment_intent_id = $1`,
      [checkout.paymentIntentId],
    );
    expect(row?.shipping_discount_cents).toBeGreaterThan(0);
    expect((await usesOf(name))[0]?.amount_cents).toBe(row?.shipping_discount_cents);
  });

  it('refuses, in words and before any payment, a code that is unknown, ended, paused, not started, expired or below its minimum', async () => {
    const intents = async () =>
      (await db.query<{ n: number }>('select count(*)::int as n from public.test_payment_intents'))[0]?.n;
    const before = await intents();
    const cases: [string, string][] = [
      ['NOSUCHCODE', DISCOUNT_MESSAGES.unknown('NOSUCHCODE')],
      [await code({ kind: 'percent', percent: 5, status: 'ended' }), 'has ended'],
      [await code({ kind: 'percent', percent: 5, status: 'paused' }), 'is paused'],
      [await code({ kind: 'percent', percent: 5, starts_at: new Date(Date.now() + 86_400_000) }), 'is not valid yet'],
      [
        await code({
          kind: 'percent',
          percent: 5,
          starts_at: new Date(Date.now() - 2 * 86_400_000),
          ends_at: new Date(Date.now() - 1),
        }),
        'has expired',
      ],
      [await code({ kind: 'amount', amount_cents: 500, min_subtotal_cents: 1_000_000 }), '$10,000.00 or more'],
      [await code({ kind: 'amount', amount_cents: 500, product_ids: [1] }), 'does not apply to anything in your cart'],
    ];
    for (const [name, words] of cases)
      expect(await start({ code: name }), name).toMatchObject({
        ok: false,
        status: 409,
        code: 'discount_refused',
        message: expect.stringContaining(words),
      });
    expect(await start({ code: 'no spaces allowed' })).toMatchObject({ ok: false, status: 400, code: 'discount_refused' });
    expect(await intents()).toBe(before);
    const [open] = await db.query<{ n: number }>(
      `select count(*)::int as n from public.checkouts where payment_intent_id is null and order_id is null`,
    );
    expect(open?.n).toBe(0);
  });

  it('a declined, failed or canceled payment lets go of its use; paying again holds it again first', async () => {
    const name = await code({ kind: 'percent', percent: 10, usage_limit: 1 });
    const mine = await opened({ code: name });
    expect(await start({ code: name, email: 'bo@example.com' })).toMatchObject({
      ok: false,
      code: 'discount_refused',
      message: DISCOUNT_MESSAGES.usedUp(name),
    });
    // The TEST MODE card route and Stripe's payment_failed webhook both call this.
    await releasePayment(db, mine.paymentIntentId);
    expect(await count(name, 'released')).toBe(1);
    // Paying again re-holds it, so nobody else can take it in between.
    expect(await start({ code: name, previousClientSecret: mine.clientSecret })).toMatchObject({ ok: true });
    expect(await count(name, 'held')).toBe(1);
    // A failure reported for an attempt before this hold (a late webhook) lets go of nothing.
    const body = JSON.stringify({
      id: `evt_${randomUUID()}`,
      type: 'payment_intent.payment_failed',
      created: Math.floor(Date.now() / 1000) - 60,
      data: { object: { id: mine.paymentIntentId, object: 'payment_intent' } },
    });
    await handlePaymentEvent(db, payments, body, signTestWebhook(body, WEBHOOK_SECRET));
    expect(await count(name, 'held')).toBe(1);
    const canceled = JSON.stringify({
      id: `evt_${randomUUID()}`,
      type: 'payment_intent.canceled',
      created: Math.floor(Date.now() / 1000) + 2,
      data: { object: { id: mine.paymentIntentId, object: 'payment_intent' } },
    });
    await handlePaymentEvent(db, payments, canceled, signTestWebhook(canceled, WEBHOOK_SECRET));
    expect(await count(name, 'held')).toBe(0);
    expect(await start({ code: name, email: 'bo@example.com' })).toMatchObject({ ok: true });
  });

  it('3-D Secure: the use stays held (not spent) during the challenge, is released when it fails, used once it passes', async () => {
    const name = await code({ kind: 'percent', percent: 10, usage_limit: 1 });
    const mine = await opened({ code: name });
    // The TEST MODE card routes, wired as src/pages/api/test-payments/*.ts wire them.
    const deps = {
      db,
      payments,
      limits: { testCardPerIntent: { limit: 100, windowSeconds: 60 } },
      onFailed: (id: string) => releasePayment(db, id),
    };
    const post = (path: string, body: object) =>
      new Request(`http://shop.test/api/test-payments/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientSecret: mine.clientSecret, ...body }),
      });
    const challenged = await confirmTestCard(deps, post('confirm', { ...card, number: '4000002500003155' }));
    expect(await challenged.json()).toMatchObject({ status: 'requires_action' });
    expect(await usesOf(name)).toMatchObject([{ state: 'held', live: true }]);
    expect(await start({ code: name, email: 'eve@example.com' })).toMatchObject({ ok: false, reason: 'used_up' });
    // The shopper fails the challenge: the use goes back.
    expect(await (await authenticateTestCard(deps, post('authenticate', { approve: false }))).json()).toMatchObject({
      status: 'requires_payment_method',
    });
    expect(await usesOf(name)).toMatchObject([{ state: 'released' }]);
    // Paying again holds it first, and a passed challenge records the order with its use.
    expect(await start({ code: name, previousClientSecret: mine.clientSecret })).toMatchObject({ ok: true });
    await confirmTestCard(deps, post('confirm', { ...card, number: '4000002500003155' }));
    expect(await (await authenticateTestCard(deps, post('authenticate', { approve: true }))).json()).toMatchObject({
      status: 'succeeded',
    });
    const recorded = await recordOrder(db, payments, mine.paymentIntentId);
    expect(recorded).toMatchObject({ ok: true, order: { created: true } });
    expect(await usesOf(name)).toMatchObject([{ state: 'used' }]);
  });

  it('a payment the processor could not open lets go of the use it held', async () => {
    const name = await code({ kind: 'percent', percent: 10, usage_limit: 1 });
    const down = { ...payments, createIntent: async () => Promise.reject(new Error('processor down')) };
    await expect(
      startCheckout(db, down, catalogue, null, { lines: [soap(1)], address, rateId: await rate(), discountCode: name }),
    ).rejects.toThrow('processor down');
    expect(await usesOf(name)).toMatchObject([{ state: 'released' }]);
    expect(await start({ code: name })).toMatchObject({ ok: true });
  });

  it('a reused payment follows its code: taken off releases the use, another code moves it, and the charge follows', async () => {
    const first = await code({ kind: 'percent', percent: 10 });
    const second = await code({ kind: 'amount', amount_cents: 300 });
    const mine = await opened({ code: first });
    const without = await opened({ code: null, previousClientSecret: mine.clientSecret });
    expect(without.paymentIntentId).toBe(mine.paymentIntentId);
    expect(without.totals.discountCents).toBe(0);
    expect(await usesOf(first)).toMatchObject([{ state: 'released' }]);
    const other = await opened({ code: second, previousClientSecret: mine.clientSecret });
    expect(other.paymentIntentId).toBe(mine.paymentIntentId);
    expect(other.totals.discountCents).toBe(300);
    expect(await usesOf(first)).toEqual([]);
    expect(await usesOf(second)).toMatchObject([{ state: 'held', amount_cents: 300 }]);
    expect((await payments.retrieveIntent(mine.paymentIntentId)).amountCents).toBe(other.totals.totalCents);
    const order = await payAndRecord(other);
    const [row] = await db.query<{ total_cents: number; discount_code: string }>(
      'select total_cents, discount_code from public.orders where id = $1',
      [order.id],
    );
    expect(row).toEqual({ total_cents: other.totals.totalCents, discount_code: second });
  });

  it('a per-customer limit counts the account and every spelling of its e-mails', async () => {
    const name = await code({ kind: 'percent', percent: 10, per_customer_limit: 1 });
    const ann = await newShopper(db, 'ann');
    const refused = { ok: false, code: 'discount_refused', message: DISCOUNT_MESSAGES.customerLimit(name) };
    // Ann, signed in, uses it with a contact e-mail of her own.
    await payAndRecord(await opened({ code: name, userId: ann.sub, accountEmail: ann.email, email: 'Ann.Lee+shop@Example.com' }));
    // The same account with another contact e-mail (or after changing its e-mail): refused.
    expect(
      await start({ code: name, userId: ann.sub, accountEmail: 'new.ann@example.com', email: 'x@example.com' }),
    ).toMatchObject(refused);
    // A guest with another spelling of the contact e-mail, or with the account's e-mail: refused.
    expect(await start({ code: name, email: ' ANN.LEE@example.com' })).toMatchObject(refused);
    expect(await start({ code: name, email: ann.email.toUpperCase() })).toMatchObject(refused);
    // Gmail's dots and +tags are one mailbox; googlemail.com is gmail.com.
    await payAndRecord(await opened({ code: name, email: 'bo.smith@gmail.com' }));
    expect(await start({ code: name, email: 'bosmith+deals@googlemail.com' })).toMatchObject(refused);
    // Someone else still may.
    expect(await start({ code: name, email: 'cy@example.com' })).toMatchObject({ ok: true });
  });

  it('a hold that lapsed stops counting; a payment after it is discounted when the limit has room, refunded when not', async () => {
    const name = await code({ kind: 'percent', percent: 10, usage_limit: 1 });
    const lapse = (intent: string) =>
      db.query(
        `update public.discount_redemptions set expires_at = now() - interval '1 second', held_at = held_at - interval '16 minutes'
          where checkout_id = (select id from public.checkouts where payment_intent_id = $1)`,
        [intent],
      );
    const slow = await opened({ code: name });
    await lapse(slow.paymentIntentId);
    // Room still: the late payment gets its discount.
    expect((await payAndRecord(slow)).soldOut).toBeUndefined();
    expect(await count(name, 'used')).toBe(1);

    const other = await code({ kind: 'percent', percent: 10, usage_limit: 1 });
    // The soap is counted: what the late order's sale took goes back when it is recorded cancelled.
    await db.query(`insert into public.stock_levels (product_id, on_hand) values (7, 5)`);
    const late = await opened({ code: other });
    expect((await payments.confirm(late.clientSecret, card)).status).toBe('succeeded');
    await lapse(late.paymentIntentId);
    // Someone else takes the one use meanwhile and pays.
    await payAndRecord(await opened({ code: other, email: 'dee@example.com' }));
    const recorded = await recordOrder(db, payments, late.paymentIntentId);
    expect(recorded).toMatchObject({ ok: true, order: { soldOut: expect.stringContaining(`Discount code ${other} sold out`) } });
    const orderId = recorded.ok ? recorded.order.id : '';
    const [order] = await db.query<{ status: string; jobs: string[] }>(
      `select status, (select json_agg(kind) from public.outbox where dedupe_key like '%' || o.id::text) as jobs
         from public.orders o where id = $1`,
      [orderId],
    );
    expect(order).toEqual({ status: 'cancelled', jobs: ['order-sold-out'] });
    const [soap] = await db.query<{ on_hand: number }>(`select on_hand from public.stock_levels where product_id = 7`);
    expect(soap?.on_hand).toBe(4);
    expect(await count(other, 'used')).toBe(1);
    expect(await count(other, 'released')).toBe(1);
  });

  it('one client address holds at most HOLD_CAP × ADDRESS_LIMIT_FACTOR of a limited code’s uses, whatever e-mails it gives', async () => {
    const name = await code({ kind: 'percent', percent: 10, usage_limit: 10 });
    const client = { clientAddress: '203.0.113.7', addressLimitFactor: 1 };
    const held = [];
    for (let i = 0; i < HOLD_CAP; i++) held.push(await opened({ code: name, email: `a${i}@example.com`, client }));
    expect(await start({ code: name, email: 'a9@example.com', client })).toEqual({
      ok: false,
      status: 409,
      code: 'discount_refused',
      message: DISCOUNT_MESSAGES.addressLimit(name),
      reason: 'address_limit',
    });
    // Another address is not held back; a use paid for no longer counts against the address.
    expect(
      await start({ code: name, email: 'b1@example.com', client: { ...client, clientAddress: '198.51.100.4' } }),
    ).toMatchObject({
      ok: true,
    });
    const [first, second] = held;
    if (!first || !second) throw new Error('not held');
    await payAndRecord(first);
    expect(await start({ code: name, email: 'a9@example.com', client })).toMatchObject({ ok: true });
    // A checkout of the address paying again is not held against itself.
    expect(await start({ code: name, email: 'a1@example.com', client, previousClientSecret: second.clientSecret })).toMatchObject(
      {
        ok: true,
        paymentIntentId: second.paymentIntentId,
      },
    );
  });

  it('lapsed holds are marked released a day later, as lapsed stock holds are pruned', async () => {
    const name = await code({ kind: 'percent', percent: 10 });
    const mine = await opened({ code: name });
    await db.query(
      `update public.discount_redemptions set expires_at = now() - interval '25 hours'
        where checkout_id = (select id from public.checkouts where payment_intent_id = $1)`,
      [mine.paymentIntentId],
    );
    expect(await pruneDiscountHolds(db)).toBeGreaterThanOrEqual(1);
    expect(await usesOf(name)).toMatchObject([{ state: 'released' }]);
  });
});

describe(`the race for a code’s last uses on ${TEST_DATABASE_KIND}`, () => {
  // On PostgreSQL, the shoppers reach two servers (each its own pool of connections) on the same database.
  let servers: Database[] = [];
  beforeAll(() => {
    const url = databaseUrl(db);
    servers = url ? [openPostgres(url, { max: 10 }), openPostgres(url, { max: 10 })] : [];
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it('50 checkouts at once with a code limited to 10: exactly 10 held, 40 told it is used up before paying, 10 discounted orders', async () => {
    const name = await code({ kind: 'percent', percent: 15, usage_limit: 10 });
    const intentsBefore =
      (await db.query<{ n: number }>('select count(*)::int as n from public.test_payment_intents'))[0]?.n ?? 0;
    const attempts = await Promise.all(
      Array.from({ length: 50 }, (_, i) => start({ code: name, email: `shopper${i}@example.com`, on: servers[i % 2] ?? db })),
    );
    const held = attempts.filter((a) => a.ok);
    expect(held).toHaveLength(10);
    for (const refused of attempts.filter((a) => !a.ok))
      expect(refused).toEqual({
        ok: false,
        status: 409,
        code: 'discount_refused',
        message: DISCOUNT_MESSAGES.usedUp(name),
        reason: 'used_up',
      });
    const intentsAfter = (await db.query<{ n: number }>('select count(*)::int as n from public.test_payment_intents'))[0]?.n ?? 0;
    expect(intentsAfter - intentsBefore).toBe(10);
    expect(await count(name, 'held')).toBe(10);

    // All ten pay at once, each confirmed three times at once (the request, the webhook, a retry).
    await Promise.all(held.map((h) => (h.ok ? payments.confirm(h.clientSecret, card) : null)));
    const recorded = await Promise.all(
      held.flatMap((h) => (h.ok ? Array.from({ length: 3 }, () => recordOrder(db, payments, h.paymentIntentId)) : [])),
    );
    expect(recorded.every((r) => r.ok && !r.order.soldOut)).toBe(true);
    const [orders] = await db.query<{ n: number; charged_right: number }>(
      `select count(*)::int as n,
              count(*) filter (where o.total_cents = i.amount_cents and o.discount_cents > 0)::int as charged_right
         from public.orders o join public.test_payment_intents i on i.id = o.payment_intent_id
        where o.discount_code = $1`,
      [name],
    );
    expect(orders).toEqual({ n: 10, charged_right: 10 });
    expect(await count(name, 'used')).toBe(10);
    expect(await start({ code: name, email: 'late@example.com' })).toMatchObject({ ok: false, code: 'discount_refused' });
  }, 60_000);
});
