/**
 * Stock counts that never oversell (decision 007), on a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL,
 * where concurrent transactions really overlap): a checkout holds its counted items as its payment opens, for
 * HOLD_MINUTES; a checkout that cannot have them is refused before any payment; a paid order turns the hold into a
 * sale once; a failed payment lets go; a payment that outlived its hold gets the items when they are still there and
 * is refunded in full when they are not; cancelling or refunding an order puts its items back when the owner says so;
 * one shopper (an account, or a guest's client address) holds at most HOLD_CAP of an item across their checkouts.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { AdminCaller } from '@/features/admin/admin.server';
import { cancelOrder, refundOrder, restockOrderAction } from '@/features/admin/orders/order-actions.server';
import { orderChangeEmailJob } from '@/features/checkout/fulfilment.server';
import { recordOrder } from '@/features/checkout/order.server';
import { handlePaymentEvent } from '@/features/checkout/payment-events.server';
import { quoteRates } from '@/features/checkout/rates.server';
import { soldOutRefundJob } from '@/features/checkout/sold-out.server';
import { type PaymentIntentBody, startCheckout } from '@/features/checkout/start-checkout.server';
import { HOLD_CAP, HOLD_MINUTES, releaseHolds, sellStock } from '@/features/stock/stock.server';
import { asService } from '@/server/db/roles.server';
import { captureLogs } from '@/server/log.server';
import type { MailMessage } from '@/server/mail/mail.port';
import { JOBS } from '@/server/outbox/jobs.server';
import { confirmTestCard } from '@/server/payments/test-card-routes.server';
import { createTestProcessor, signTestWebhook } from '@/server/payments/test-processor.server';
import { createRateTableShipping } from '@/server/shipping/rate-table.server';
import { loadCatalogueIndex } from '../unit/load-catalogue';
import { newShopper } from './shopper-fixtures';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
const catalogue = loadCatalogueIndex();
const WEBHOOK_SECRET = 'whsec_test_stock';
const payments = createTestProcessor(db, { webhookSecret: WEBHOOK_SECRET });
const address = {
  name: 'Grace Hopper',
  email: 'grace@example.com',
  street1: '12 Bull St',
  city: 'Savannah',
  state: 'GA',
  zip: '31401',
  country: 'US' as const,
};
type Line = PaymentIntentBody['lines'][number];
const soap = (quantity = 1): Line => ({ productId: 7, quantity, selectedColor: null, selectedSize: null });
const oil = (quantity = 1): Line => ({ productId: 6, quantity, selectedColor: null, selectedSize: null });
const scrubs = (quantity = 1, color = 'blue', size = 'M'): Line => ({
  productId: 3,
  quantity,
  selectedColor: color,
  selectedSize: size,
});
const card = { number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' };
const DECLINED = '4000000000000002';

/** Sets an item's count as the owner would (null: not counted), straight in the table. */
async function count(line: Pick<Line, 'productId' | 'selectedColor' | 'selectedSize'>, onHand: number | null) {
  const key = [line.productId, line.selectedColor ?? '', line.selectedSize ?? ''];
  if (onHand === null) await db.query('delete from public.stock_levels where product_id = $1 and color = $2 and size = $3', key);
  else
    await db.query(
      `insert into public.stock_levels (product_id, color, size, on_hand) values ($1, $2, $3, $4)
       on conflict (product_id, color, size) do update set on_hand = excluded.on_hand`,
      [...key, onHand],
    );
}

async function onHand(line: Pick<Line, 'productId' | 'selectedColor' | 'selectedSize'>): Promise<number | null> {
  const [row] = await db.query<{ on_hand: number }>(
    'select on_hand from public.stock_levels where product_id = $1 and color = $2 and size = $3',
    [line.productId, line.selectedColor ?? '', line.selectedSize ?? ''],
  );
  return row ? row.on_hand : null;
}

/** What anyone can still buy of the item (public.stock_available, asked as a guest would). */
async function available(line: Pick<Line, 'productId' | 'selectedColor' | 'selectedSize'>): Promise<number | null> {
  const rows = await db.transaction(
    (tx) =>
      tx.query<{ available: number }>(
        'select available from public.stock_available() where product_id = $1 and color = $2 and size = $3',
        [line.productId, line.selectedColor ?? '', line.selectedSize ?? ''],
      ),
    { text: `select set_config('role', 'anon', true)` },
  );
  return rows[0] ? rows[0].available : null;
}

async function rateFor(lines: Line[]): Promise<string> {
  const quoted = await quoteRates(db, createRateTableShipping(), catalogue, { toAddress: address, lines });
  if (!quoted.ok) throw new Error(quoted.message);
  return quoted.rates[0]?.id ?? '';
}

/** Opens a checkout's payment as the drawer does (a guest's unless `userId`), with the payment it opened before. */
async function start(lines: Line[], previousClientSecret?: string) {
  return startCheckout(db, payments, catalogue, null, {
    lines,
    address,
    rateId: await rateFor(lines),
    ...(previousClientSecret ? { previousClientSecret } : {}),
  });
}

async function started(lines: Line[]) {
  const result = await start(lines);
  if (!result.ok) throw new Error(result.message);
  return result;
}

/** Lets the checkout's hold lapse, as if its time limit had passed. */
const lapse = (paymentIntentId: string) =>
  db.query(
    `update public.stock_holds set expires_at = now() - interval '1 second', held_at = held_at - interval '16 minutes'
      where checkout_id = (select id from public.checkouts where payment_intent_id = $1)`,
    [paymentIntentId],
  );

const holdsOf = (paymentIntentId: string) =>
  db.query<{ quantity: number; minutes: number }>(
    `select h.quantity, round(extract(epoch from h.expires_at - h.held_at) / 60)::int as minutes
       from public.stock_holds h join public.checkouts c on c.id = h.checkout_id where c.payment_intent_id = $1`,
    [paymentIntentId],
  );

const intents = async () => (await db.query<{ n: number }>('select count(*)::int as n from public.test_payment_intents'))[0]?.n;

beforeEach(async () => {
  await db.query('delete from public.stock_holds');
  await db.query('delete from public.stock_levels');
});

describe(`stock on ${TEST_DATABASE_KIND}`, () => {
  it(`holds a checkout’s counted items for ${HOLD_MINUTES} minutes from the moment its payment opens`, async () => {
    await count(soap(), 3);
    const checkout = await started([soap(2), oil(1)]);
    // Only counted items are held; the oil is not counted (unlimited), as every product was before.
    expect(await holdsOf(checkout.paymentIntentId)).toEqual([{ quantity: 2, minutes: HOLD_MINUTES }]);
    expect(await onHand(soap())).toBe(3);
    expect(await available(soap())).toBe(1);
    expect(await available(oil())).toBeNull();
  });

  it('refuses, before any payment is opened, a checkout wanting more than is left: naming the item and how many', async () => {
    await count(soap(), 1);
    await count(scrubs(1, 'powder-blue', 'L'), 0);
    const before = await intents();
    expect(await start([soap(2)])).toEqual({
      ok: false,
      status: 409,
      code: 'out_of_stock',
      message: 'Only 1 of Kojic Acid Soap left. Please lower the quantity in your cart.',
    });
    expect(await start([oil(1), scrubs(1, 'powder-blue', 'L')])).toMatchObject({
      ok: false,
      code: 'out_of_stock',
      message: 'Clinical Scrubs (Powder Blue, L) is out of stock. Please remove it from your cart.',
    });
    expect(await intents()).toBe(before);
    const [open] = await db.query<{ n: number }>(
      'select count(*)::int as n from public.checkouts where payment_intent_id is null and order_id is null',
    );
    expect(open?.n).toBe(0);
    // Another colour or size of the same product is its own item.
    expect(await start([scrubs(1, 'powder-blue', 'M')])).toMatchObject({ ok: true });
  });

  it('twenty checkouts at once for the last three: exactly three are held, and exactly three orders are placed', async () => {
    await count(soap(), 3);
    const attempts = await Promise.all(Array.from({ length: 20 }, () => start([soap(1)])));
    const held = attempts.filter((a) => a.ok);
    expect(held).toHaveLength(3);
    for (const refused of attempts.filter((a) => !a.ok))
      expect(refused).toMatchObject({
        status: 409,
        message: 'Kojic Acid Soap is out of stock. Please remove it from your cart.',
      });
    expect(await available(soap())).toBe(0);

    // All three pay at once, and each is confirmed five times at once (the confirming request, webhooks, retries).
    await Promise.all(held.map((h) => (h.ok ? payments.confirm(h.clientSecret, card) : null)));
    const recorded = await Promise.all(
      held.flatMap((h) => (h.ok ? Array.from({ length: 5 }, () => recordOrder(db, payments, h.paymentIntentId)) : [])),
    );
    expect(recorded.every((r) => r.ok && !r.order.soldOut)).toBe(true);
    const orders = new Set(recorded.map((r) => (r.ok ? r.order.id : '')));
    expect(orders.size).toBe(3);
    expect(await onHand(soap())).toBe(0);
    const [taken] = await db.query<{ rows: number; quantity: number }>(
      `select count(*)::int as rows, sum(s.quantity)::int as quantity
         from public.stock_sales s join public.checkouts c on c.id = s.checkout_id where c.order_id = any($1::uuid[])`,
      [[...orders]],
    );
    expect(taken).toEqual({ rows: 3, quantity: 3 });
    expect(await start([soap(1)])).toMatchObject({ ok: false, code: 'out_of_stock' });
  });

  it('checkouts wanting two each of the last five scrubs in one colour and size: two are held, the others are told 1 is left', async () => {
    const blueM = scrubs(2);
    await count(blueM, 5);
    await count(scrubs(1, 'grey', 'M'), 5);
    const attempts = await Promise.all(Array.from({ length: 8 }, () => start([blueM, scrubs(1, 'grey', 'M')])));
    expect(attempts.filter((a) => a.ok)).toHaveLength(2);
    expect(attempts.filter((a) => !a.ok).map((a) => !a.ok && a.message)).toEqual(
      Array(6).fill('Only 1 of Clinical Scrubs (Blue, M) left. Please lower the quantity in your cart.'),
    );
    expect(await available(blueM)).toBe(1);
    // The grey is held only with the blue it was bought with: the refused checkouts hold nothing.
    expect(await available(scrubs(1, 'grey', 'M'))).toBe(3);
  });

  it('a sale is made once per checkout: one made before a failed attempt to write the order is not made again', async () => {
    await count(soap(), 5);
    const paid = await started([soap(2)]);
    await payments.confirm(paid.clientSecret, card);
    const [checkout] = await db.query<{ id: string }>('select id from public.checkouts where payment_intent_id = $1', [
      paid.paymentIntentId,
    ]);
    // What recordOrder does first, as if the server then died before the order's transaction committed.
    expect(await sellStock(db, checkout?.id ?? '', [{ ...soap(2), label: 'Kojic Acid Soap' }])).toMatchObject({ state: 'sold' });
    expect(await onHand(soap())).toBe(3);
    // Even with nothing left now, the retry (the webhook, reconciliation) records the order it already sold.
    await count(soap(), 0);
    const recorded = await recordOrder(db, payments, paid.paymentIntentId);
    expect(recorded).toMatchObject({ ok: true, order: { created: true } });
    expect(recorded.ok && recorded.order.soldOut).toBeUndefined();
    expect(await onHand(soap())).toBe(0);
    // And once the order exists, the sale says so and takes nothing.
    expect(await sellStock(db, checkout?.id ?? '', [soap(2)])).toEqual({ state: 'recorded', counted: [] });
  });

  it('a payment that does not match its checkout takes no stock', async () => {
    await count(soap(), 5);
    const paid = await started([soap(1)]);
    await payments.confirm(paid.clientSecret, card);
    const lying = {
      ...payments,
      retrieveIntent: async (id: string) => ({ ...(await payments.retrieveIntent(id)), amountCents: 1 }),
    };
    const logs = captureLogs('error');
    try {
      expect(await recordOrder(db, lying, paid.paymentIntentId)).toMatchObject({ ok: false, status: 409 });
      expect(logs.text()).toMatch(/another amount than its checkout: no order recorded/);
    } finally {
      logs.restore();
    }
    expect(await onHand(soap())).toBe(5);
  });

  it('a hold that has lapsed no longer counts: the items are on sale again', async () => {
    await count(soap(), 1);
    const first = await started([soap(1)]);
    expect(await start([soap(1)])).toMatchObject({ ok: false });
    await lapse(first.paymentIntentId);
    expect(await available(soap())).toBe(1);
    expect(await start([soap(1)])).toMatchObject({ ok: true });
  });

  it('paying again holds again first; when the items went meanwhile, the card is not charged', async () => {
    await count(soap(), 1);
    const mine = await started([soap(1)]);
    await lapse(mine.paymentIntentId);
    // Pressing Pay sends the same cart with the payment it opened: held again, the same payment.
    const again = await start([soap(1)], mine.clientSecret);
    expect(again).toMatchObject({ ok: true, paymentIntentId: mine.paymentIntentId });
    expect(await holdsOf(mine.paymentIntentId)).toEqual([{ quantity: 1, minutes: HOLD_MINUTES }]);
    // Lapsed again, and another shopper holds the last one meanwhile: this shopper's next attempt is refused.
    await lapse(mine.paymentIntentId);
    expect(await start([soap(1)])).toMatchObject({ ok: true });
    expect(await start([soap(1)], mine.clientSecret)).toMatchObject({ ok: false, code: 'out_of_stock' });
    expect((await payments.retrieveIntent(mine.paymentIntentId)).status).toBe('requires_payment_method');
  });

  it('a declined card lets go of the hold (the TEST MODE card route, as Stripe’s payment_failed webhook does)', async () => {
    await count(soap(), 1);
    const mine = await started([soap(1)]);
    const deps = { db, payments, limits: { testCardPerIntent: { limit: 100, windowSeconds: 60 } } };
    const confirm = (number: string, onFailed?: (id: string) => Promise<unknown>) =>
      confirmTestCard(
        { ...deps, ...(onFailed ? { onFailed } : {}) },
        new Request('http://shop.test/api/test-payments/confirm', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ clientSecret: mine.clientSecret, ...card, number }),
        }),
      );
    // A number the form should have refused (not a card the processor declined) lets go of nothing.
    const failed: string[] = [];
    const release = (id: string) => {
      failed.push(id);
      return releaseHolds(db, id);
    };
    expect((await confirm('4242', release)).status).toBe(200);
    expect(failed).toEqual([]);
    expect(await available(soap())).toBe(0);
    const declined = await confirm(DECLINED, release);
    expect(await declined.json()).toMatchObject({ status: 'requires_payment_method', error: 'Your card was declined.' });
    expect(failed).toEqual([mine.paymentIntentId]);
    expect(await available(soap())).toBe(1);
    // Paying again with another card holds again first, then charges.
    expect(await start([soap(1)], mine.clientSecret)).toMatchObject({ ok: true, paymentIntentId: mine.paymentIntentId });
    expect((await (await confirm(card.number, release)).json()).status).toBe('succeeded');
    expect(await recordOrder(db, payments, mine.paymentIntentId)).toMatchObject({ ok: true, order: { created: true } });
    expect(await onHand(soap())).toBe(0);
  });

  it('a failed or canceled payment’s webhook lets go of holds taken before it, never of one taken after', async () => {
    await count(soap(), 2);
    const mine = await started([soap(1)]);
    const event = (type: string, id: string, created: number) => {
      const body = JSON.stringify({
        id,
        type,
        created,
        data: { object: { id: mine.paymentIntentId, object: 'payment_intent' } },
      });
      return handlePaymentEvent(db, payments, body, signTestWebhook(body, WEBHOOK_SECRET));
    };
    // An event from before the hold was taken (delivered late): the hold stays.
    const before = Math.floor(Date.now() / 1000) - 60;
    expect(await event('payment_intent.payment_failed', 'evt_failed_old', before)).toMatchObject({ status: 200 });
    expect(await holdsOf(mine.paymentIntentId)).toHaveLength(1);
    const after = Math.floor(Date.now() / 1000) + 2;
    expect(await event('payment_intent.payment_failed', 'evt_failed_new', after)).toMatchObject({ status: 200 });
    expect(await holdsOf(mine.paymentIntentId)).toEqual([]);
    await started([soap(2)]);
    const other = await started([oil(1)]);
    await count(oil(), 4);
    expect(await start([oil(1)], other.clientSecret)).toMatchObject({ ok: true });
    expect(await available(oil())).toBe(3);
    const canceled = JSON.stringify({
      id: 'evt_canceled',
      type: 'payment_intent.canceled',
      created: after,
      data: { object: { id: other.paymentIntentId, object: 'payment_intent' } },
    });
    await handlePaymentEvent(db, payments, canceled, signTestWebhook(canceled, WEBHOOK_SECRET));
    expect(await available(oil())).toBe(4);
  });

  it('a payment that succeeds after its hold lapsed gets the items when they are still there', async () => {
    await count(soap(), 2);
    const late = await started([soap(1)]);
    await payments.confirm(late.clientSecret, card);
    await lapse(late.paymentIntentId);
    const recorded = await recordOrder(db, payments, late.paymentIntentId);
    expect(recorded).toMatchObject({ ok: true, order: { created: true } });
    expect(recorded.ok && recorded.order.soldOut).toBeUndefined();
    expect(await onHand(soap())).toBe(1);
  });

  it('a payment that succeeds after its hold lapsed and its items sold: no order placed, refunded in full, both told', async () => {
    await count(scrubs(1, 'black', 'S'), 1);
    const late = await started([scrubs(1, 'black', 'S'), oil(1)]);
    await payments.confirm(late.clientSecret, card);
    await lapse(late.paymentIntentId);
    // Another shopper holds, pays for and gets the last one meanwhile.
    const other = await started([scrubs(1, 'black', 'S')]);
    await payments.confirm(other.clientSecret, card);
    expect(await recordOrder(db, payments, other.paymentIntentId)).toMatchObject({ ok: true });
    expect(await onHand(scrubs(1, 'black', 'S'))).toBe(0);

    const message =
      'Clinical Scrubs (Black, S) sold out while your payment was going through, so we could not place this order. ' +
      `Your payment of $${(late.amountCents / 100).toFixed(2)} is being refunded in full; you will get an e-mail when it is on its way.`;
    const recorded = await recordOrder(db, payments, late.paymentIntentId);
    expect(recorded).toMatchObject({ ok: true, order: { created: true, soldOut: message } });
    const orderId = recorded.ok ? recorded.order.id : '';
    // Every later confirmation (the webhook, a retry) says the same.
    expect(await recordOrder(db, payments, late.paymentIntentId)).toMatchObject({
      ok: true,
      order: { id: orderId, soldOut: message },
    });
    expect(await onHand(scrubs(1, 'black', 'S'))).toBe(0);
    const [order] = await db.query<{ status: string; sold_out: unknown; taken: number }>(
      `select status, sold_out, (select count(*)::int from public.stock_sales s join public.checkouts c on c.id = s.checkout_id
                 where c.order_id = o.id) as taken
         from public.orders o where id = $1`,
      [orderId],
    );
    expect(order).toMatchObject({
      status: 'cancelled',
      sold_out: [{ productId: 3, color: 'black', size: 'S', label: 'Clinical Scrubs (Black, S)', wanted: 1, available: 0 }],
      taken: 0,
    });
    const jobs = async () =>
      (
        await db.query<{ kind: string; key: string; payload: unknown }>(
          `select kind, dedupe_key as key, payload from public.outbox where dedupe_key like $1 order by id`,
          [`%${orderId}`],
        )
      ).map((j) => ({ ...j, payload: typeof j.payload === 'string' ? JSON.parse(j.payload) : j.payload }));
    // Nothing ships and no confirmation goes out: only the refund's job.
    expect((await jobs()).map((j) => j.key)).toEqual([`sold-out:${orderId}`]);

    const job = soldOutRefundJob({ db, payments, shopEmail: 'orders@shop.example', publicOrigin: 'https://shop.example' });
    const payload = JOBS['order-sold-out'].parse((await jobs())[0]?.payload);
    await job(payload);
    await job(payload); // a retry after a lost answer refunds nothing more
    const refunds = await db.query<{ amount_cents: number; status: string; admin_id: string | null }>(
      'select amount_cents, status, admin_id from public.order_refunds where order_id = $1',
      [orderId],
    );
    expect(refunds).toEqual([{ amount_cents: late.amountCents, status: 'succeeded', admin_id: null }]);
    const [processor] = await db.query<{ n: number; cents: number }>(
      'select count(*)::int as n, sum(amount_cents)::int as cents from public.test_refunds where intent_id = $1',
      [late.paymentIntentId],
    );
    expect(processor).toEqual({ n: 1, cents: late.amountCents });

    const queued = await jobs();
    expect(queued.map((j) => j.key)).toEqual([
      `sold-out:${orderId}`,
      `mail:sold-out:${orderId}`,
      `mail:sold-out-shop:${orderId}`,
    ]);
    const shop = queued[2]?.payload as MailMessage;
    expect(shop.to).toBe('orders@shop.example');
    expect(shop.text).toContain('Clinical Scrubs (Black, S) had sold out');
    expect(shop.text).toContain(`https://shop.example/admin/orders/${orderId}`);
    const sent: MailMessage[] = [];
    const mail = { name: 'capture', send: async (m: MailMessage) => void sent.push(m) };
    await orderChangeEmailJob({ db, mail, publicOrigin: 'https://shop.example' })(
      JOBS['order-change-email'].parse(queued[1]?.payload),
    );
    expect(sent[0]?.to).toBe('grace@example.com');
    expect(sent[0]?.subject).toMatch(/could not be placed: refunded in full/);
    expect(sent[0]?.text).toContain('Clinical Scrubs (Black, S) sold out while your payment');
    expect(sent[0]?.text).toContain(`$${(late.amountCents / 100).toFixed(2)}, all you paid, is on its way back`);
  });

  it('an owner who lowers a count below what a checkout holds: that checkout’s payment is refunded, not oversold', async () => {
    await count(soap(), 2);
    const mine = await started([soap(2)]);
    await payments.confirm(mine.clientSecret, card);
    await count(soap(), 1);
    const recorded = await recordOrder(db, payments, mine.paymentIntentId);
    expect(recorded.ok && recorded.order.soldOut).toMatch(/^Kojic Acid Soap sold out/);
    expect(await onHand(soap())).toBe(1);
  });

  describe(`what one shopper can hold at once (${HOLD_CAP} of an item across their checkouts)`, () => {
    const guest = (clientAddress: string, addressLimitFactor = 1) => ({ clientAddress, addressLimitFactor });
    /** Opens a new checkout (no payment opened before) as a signed-in shopper or a guest from a client address. */
    const startAs = async (lines: Line[], who: { userId: string } | { clientAddress: string; addressLimitFactor: number }) =>
      startCheckout(
        db,
        payments,
        catalogue,
        'userId' in who ? who.userId : null,
        { lines, address, rateId: await rateFor(lines) },
        'userId' in who ? undefined : who,
      );

    it('a guest’s client address: checkouts that would pass the cap are refused in the shopper’s words, nothing held', async () => {
      await count(soap(), 100);
      const me = guest('203.0.113.7');
      expect(await startAs([soap(3)], me)).toMatchObject({ ok: true });
      const before = await intents();
      expect(await startAs([soap(3)], me)).toEqual({
        ok: false,
        status: 409,
        code: 'hold_limit',
        message:
          'You already have 3 of Kojic Acid Soap set aside in another checkout, and we hold up to 5 for one shopper at a time. Please lower the quantity in your cart to 2, or finish that checkout first.',
      });
      expect(await intents()).toBe(before);
      expect(await startAs([soap(2)], me)).toMatchObject({ ok: true });
      expect(await startAs([soap(1), oil(5)], me)).toMatchObject({
        ok: false,
        code: 'hold_limit',
        message:
          'You already have 5 of Kojic Acid Soap set aside in another checkout, the most we hold for one shopper at a time. Please finish that checkout first, or try again when it lapses, within 15 minutes.',
      });
      expect(await available(soap())).toBe(95);
      // Another client address is another guest; an item not counted has no cap (nothing is held of it).
      expect(await startAs([soap(5)], guest('198.51.100.2'))).toMatchObject({ ok: true });
      for (let i = 0; i < 3; i++) expect(await startAs([oil(5)], me)).toMatchObject({ ok: true });
      // Shoppers sharing an address (ADDRESS_LIMIT_FACTOR 2): twice the cap for it.
      expect(await startAs([soap(5)], guest('203.0.113.7', 2))).toMatchObject({ ok: true });
      expect(await startAs([soap(1)], guest('203.0.113.7', 2))).toMatchObject({ ok: false, code: 'hold_limit' });
    });

    it('a signed-in account, wherever it checks out from; its own checkout paying again is not held against it', async () => {
      await count(scrubs(1, 'black', 'S'), 10);
      const { sub } = await newShopper(db, 'cap');
      const me = { userId: sub };
      const first = await startAs([scrubs(4, 'black', 'S')], me);
      if (!first.ok) throw new Error(first.message);
      expect(await startAs([scrubs(2, 'black', 'S')], me)).toMatchObject({
        ok: false,
        code: 'hold_limit',
        message:
          'You already have 4 of Clinical Scrubs (Black, S) set aside in another checkout, and we hold up to 5 for one shopper at a time. Please lower the quantity in your cart to 1, or finish that checkout first.',
      });
      // A guest on the same client address is not this account.
      expect(await startAs([scrubs(5, 'black', 'S')], guest('127.0.0.1'))).toMatchObject({ ok: true });
      // The same checkout again (Pay pressed, a declined card): its own hold is replaced, not added to.
      const again = await startCheckout(db, payments, catalogue, sub, {
        lines: [scrubs(4, 'black', 'S')],
        address,
        rateId: await rateFor([scrubs(4, 'black', 'S')]),
        previousClientSecret: first.clientSecret,
      });
      expect(again).toMatchObject({ ok: true, paymentIntentId: first.paymentIntentId });
      // Once the first hold lapses (or its payment fails), the account may hold again.
      await lapse(first.paymentIntentId);
      expect(await startAs([scrubs(1, 'black', 'S')], me)).toMatchObject({ ok: true });
    });

    /** A signed-in shopper checking out from a client address (as every endpoint call is from one). */
    const accountAt = async (clientAddress: string, addressLimitFactor = 1) => {
      const { sub } = await newShopper(db, 'net');
      return { userId: sub, clientAddress, addressLimitFactor };
    };
    const startFrom = async (lines: Line[], who: { userId: string | null; clientAddress: string; addressLimitFactor: number }) =>
      startCheckout(db, payments, catalogue, who.userId, { lines, address, rateId: await rateFor(lines) }, who);

    it('one client address holds at most its cap of an item, guests and accounts alike; another address still buys', async () => {
      await count(soap(), 120);
      // ADDRESS_LIMIT_FACTOR 2: one address may hold 10 of an item, whoever is signed in behind it.
      const here = { userId: null, clientAddress: '203.0.113.50', addressLimitFactor: 2 };
      expect(await startFrom([soap(5)], here)).toMatchObject({ ok: true });
      expect(await startFrom([soap(4)], here)).toMatchObject({ ok: true });
      const accounts = await Promise.all(Array.from({ length: 4 }, () => accountAt(here.clientAddress, 2)));
      expect(await startFrom([soap(1)], accounts[0] ?? here)).toMatchObject({ ok: true });
      const before = await intents();
      for (const account of accounts.slice(1))
        expect(await startFrom([soap(5)], account)).toEqual({
          ok: false,
          status: 409,
          code: 'hold_limit',
          message:
            '10 of Kojic Acid Soap are already set aside in other checkouts from your network, the most we hold for one network at a time. Please try again when they lapse, within 15 minutes.',
        });
      expect(await intents()).toBe(before);
      expect(await available(soap())).toBe(110);
      // A different address, guest or account, still buys.
      expect(await startFrom([soap(5)], { ...here, clientAddress: '198.51.100.60' })).toMatchObject({ ok: true });
      expect(await startFrom([soap(5)], await accountAt('198.51.100.61', 2))).toMatchObject({ ok: true });
      expect(await available(soap())).toBe(100);
    });

    it('accounts first, then guests: the address’s cap counts what its accounts hold, in words that say so', async () => {
      await count(oil(), 50);
      const a = await accountAt('192.0.2.70');
      const b = await accountAt('192.0.2.70');
      expect(await startFrom([oil(3)], a)).toMatchObject({ ok: true });
      expect(await startFrom([oil(3)], b)).toEqual({
        ok: false,
        status: 409,
        code: 'hold_limit',
        message:
          '3 of Turmeric Body Oil are already set aside in other checkouts from your network, and we hold up to 5 for one network at a time. Please lower the quantity in your cart to 2, or try again within 15 minutes.',
      });
      expect(await startFrom([oil(2)], b)).toMatchObject({ ok: true });
      expect(await startFrom([oil(1)], { userId: null, clientAddress: '192.0.2.70', addressLimitFactor: 1 })).toMatchObject({
        ok: false,
        code: 'hold_limit',
      });
      // An account stays capped at its own 5, whatever its address's factor.
      const roomy = await accountAt('192.0.2.71', 1000);
      expect(await startFrom([oil(5)], roomy)).toMatchObject({ ok: true });
      expect(await startFrom([oil(1)], roomy)).toMatchObject({ ok: false, code: 'hold_limit' });
      expect(await available(oil())).toBe(40);
    });

    it('guests and accounts of one address checking out at once: no more than the address’s cap is held', async () => {
      await count(soap(), 100);
      const clientAddress = '192.0.2.80';
      const who = [
        ...Array.from({ length: 4 }, () => ({ userId: null, clientAddress, addressLimitFactor: 1 })),
        ...(await Promise.all(Array.from({ length: 8 }, () => accountAt(clientAddress)))),
      ];
      const attempts = await Promise.all(who.map((w) => startFrom([soap(1)], w)));
      expect(attempts.filter((a) => a.ok)).toHaveLength(HOLD_CAP);
      for (const refused of attempts.filter((a) => !a.ok)) expect(refused).toMatchObject({ status: 409, code: 'hold_limit' });
      expect(await available(soap())).toBe(100 - HOLD_CAP);
    });

    it('ten checkouts of one shopper at once for a well-stocked item: no more than the cap is held', async () => {
      await count(soap(), 100);
      const me = guest('192.0.2.44');
      const attempts = await Promise.all(Array.from({ length: 10 }, () => startAs([soap(1)], me)));
      expect(attempts.filter((a) => a.ok)).toHaveLength(HOLD_CAP);
      for (const refused of attempts.filter((a) => !a.ok)) expect(refused).toMatchObject({ status: 409, code: 'hold_limit' });
      expect(await available(soap())).toBe(100 - HOLD_CAP);
    });
  });

  describe('putting an order’s items back', () => {
    let me: AdminCaller;
    beforeEach(async () => {
      const owner = await newShopper(db, 'owner');
      me = { admin: { id: owner.sub, email: owner.email }, run: (fn) => asService(db, fn) };
    });

    async function bought(lines: Line[]) {
      const checkout = await started(lines);
      await payments.confirm(checkout.clientSecret, card);
      const recorded = await recordOrder(db, payments, checkout.paymentIntentId);
      if (!recorded.ok) throw new Error(recorded.message);
      return recorded.order.id;
    }

    const restocks = async (orderId: string) =>
      db.query<{ after: unknown }>(`select after from public.admin_actions where action = 'stock.restock' and target like $1`, [
        `%${orderId}%`,
      ]);

    it('cancelling with the owner’s say-so puts back exactly what the order took, once; the log says what', async () => {
      await count(soap(), 5);
      await count(scrubs(1, 'grey', 'XL'), 2);
      const orderId = await bought([soap(2), scrubs(1, 'grey', 'XL'), oil(1)]);
      expect([await onHand(soap()), await onHand(scrubs(1, 'grey', 'XL'))]).toEqual([3, 1]);
      const cancelled = await cancelOrder(me, payments, orderId, { restock: true });
      expect(cancelled).toMatchObject({
        ok: true,
        answer: {
          changed: true,
          status: 'cancelled',
          message: expect.stringMatching(/1 × Clinical Scrubs \(Grey, XL\), 2 × Kojic Acid Soap back in stock\.$/),
        },
      });
      expect([await onHand(soap()), await onHand(scrubs(1, 'grey', 'XL'))]).toEqual([5, 2]);
      expect(await restocks(orderId)).toEqual([{ after: { restocked: '1 × Clinical Scrubs (Grey, XL), 2 × Kojic Acid Soap' } }]);
      // Asked again (a double click, the page's own button): nothing more goes back, nothing more is logged.
      const again = await Promise.all(Array.from({ length: 5 }, () => restockOrderAction(me, orderId)));
      expect(again.every((r) => r.ok && !r.answer.changed)).toBe(true);
      expect(await onHand(soap())).toBe(5);
      expect(await restocks(orderId)).toHaveLength(1);
    });

    it('a cancellation or refund without it leaves the counts; the items can go back later, once', async () => {
      await count(soap(), 4);
      const cancelledId = await bought([soap(1)]);
      await cancelOrder(me, payments, cancelledId);
      const refundedId = await bought([soap(2)]);
      await refundOrder(me, payments, refundedId, { amountCents: 100 });
      expect(await onHand(soap())).toBe(1);
      expect(await restockOrderAction(me, cancelledId)).toMatchObject({ ok: true, answer: { changed: true } });
      await refundOrder(me, payments, refundedId, { restock: true });
      expect(await onHand(soap())).toBe(4);
      expect(await restocks(refundedId)).toHaveLength(1);
      expect(await restockOrderAction(me, '00000000-0000-4000-8000-000000000000')).toMatchObject({ ok: false, status: 404 });
    });

    it('a live order (processing, shipped) is not restocked on its own: 409 in words, the counts unchanged', async () => {
      await count(soap(), 4);
      const orderId = await bought([soap(2)]);
      const refused = await restockOrderAction(me, orderId);
      expect(refused).toMatchObject({ ok: false, status: 409, code: 'order_live' });
      expect(refused.ok ? '' : refused.message).toMatch(/is Processing.*after it is cancelled or refunded/);
      await db.query(`update public.orders set status = 'shipped' where id = $1`, [orderId]);
      expect(await restockOrderAction(me, orderId)).toMatchObject({ ok: false, status: 409, code: 'order_live' });
      expect(await onHand(soap())).toBe(2);
      expect(await restocks(orderId)).toHaveLength(0);
      // Once refunded (the items came back), it may go back.
      await refundOrder(me, payments, orderId, { amountCents: 100 });
      expect(await restockOrderAction(me, orderId)).toMatchObject({ ok: true, answer: { changed: true } });
      expect(await onHand(soap())).toBe(4);
    });

    it('an item no longer counted (now unlimited) has no count to go back to', async () => {
      await count(soap(), 2);
      const orderId = await bought([soap(1)]);
      await count(soap(), null);
      expect(await cancelOrder(me, payments, orderId, { restock: true })).toMatchObject({ ok: true });
      expect(await onHand(soap())).toBeNull();
    });
  });

  it('guests and shoppers may ask what is available, and nothing else: no count, no hold, no stock function', async () => {
    await count(soap(), 3);
    await started([soap(1)]);
    const shopper = await newShopper(db, 'nosy');
    for (const role of ['anon', 'authenticated']) {
      const as = <T extends object>(sql: string) =>
        db.transaction((tx) => tx.query<T>(sql), {
          text: `select set_config('role', $1, true), set_config('request.jwt.claims', $2, true)`,
          params: [role, JSON.stringify(role === 'anon' ? { role } : { ...shopper })],
        });
      expect(await as('select product_id, available from public.stock_available()')).toEqual([{ product_id: 7, available: 2 }]);
      for (const sql of [
        'select * from public.stock_holds',
        'select * from public.stock_levels',
        `update public.stock_levels set on_hand = 100`,
        `insert into public.stock_levels (product_id, on_hand) values (6, 1)`,
        `select app_private.hold_stock(gen_random_uuid(), '[]', now(), 5)`,
        `select app_private.open_checkout('{}', '[]', now(), 5)`,
        `select app_private.restock_order(gen_random_uuid())`,
      ])
        await expect(as(sql), `${role}: ${sql}`).rejects.toMatchObject({ code: '42501' });
    }
    expect(await onHand(soap())).toBe(3);
  });
});
