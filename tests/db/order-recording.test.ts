/**
 * Recording an order exactly once (decision 004), on a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL,
 * where concurrent transactions really overlap): the server prices the checkout, the test processor takes the card,
 * and however many times and in whatever order the payment is confirmed, one order, one label job and one pair of
 * e-mail jobs come out.
 */
import { describe, expect, it } from 'vitest';
import { checkoutPrefill } from '@/features/checkout/checkout-prefill.server';
import { createShipment, labelJob, orderEmailJob } from '@/features/checkout/fulfilment.server';
import { CHECKOUT_PROBLEMS, recordOrder } from '@/features/checkout/order.server';
import { handlePaymentEvent, reconcilePayments } from '@/features/checkout/payment-events.server';
import { quoteRates } from '@/features/checkout/rates.server';
import { startCheckout } from '@/features/checkout/start-checkout.server';
import { orderByToken, orderOfShopper } from '@/features/orders/order-page.server';
import { orderNumber } from '@/features/orders/orders';
import { asShopper, type ShopperClaims } from '@/server/db/roles.server';
import { captureLogs } from '@/server/log.server';
import type { MailMessage } from '@/server/mail/mail.port';
import { JOBS } from '@/server/outbox/jobs.server';
import type { PaymentIntentStatus, PaymentsPort } from '@/server/payments/payments.port';
import { createTestProcessor, signTestWebhook } from '@/server/payments/test-processor.server';
import { createRateTableShipping } from '@/server/shipping/rate-table.server';
import type { Address, LabelRequest } from '@/server/shipping/shipping.port';
import { loadCatalogueIndex, withOutOfStock } from '../unit/load-catalogue';
import { newShopper } from './shopper-fixtures';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
const catalogue = loadCatalogueIndex();
const address: Address & { email: string } = {
  name: 'Grace Hopper',
  email: 'grace@example.com',
  street1: '12 Bull St',
  city: 'Savannah',
  state: 'GA',
  zip: '31401',
  country: 'US',
};
const scrubs = { productId: 3, quantity: 2, selectedColor: 'powder-blue', selectedSize: 'M' };
const soap = { productId: 7, quantity: 1, selectedColor: null, selectedSize: null };
const card = { number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' };

const WEBHOOK_SECRET = 'whsec_test_order_recording';

async function pricedCheckout(lines = [scrubs, soap], userId: string | null = null, to = address) {
  const payments = createTestProcessor(db, { webhookSecret: WEBHOOK_SECRET });
  const quoted = await quoteRates(db, createRateTableShipping(), catalogue, { toAddress: to, lines });
  if (!quoted.ok) throw new Error(quoted.message);
  const standard = quoted.rates.find((r) => r.service === 'Standard Shipping');
  if (!standard) throw new Error('no standard rate');
  const started = await startCheckout(db, payments, catalogue, userId, { lines, address: to, rateId: standard.id });
  if (!started.ok) throw new Error(started.message);
  return { payments, started };
}

const jobsFor = (orderId: string) =>
  db.query<{ kind: string; dedupe_key: string }>(
    `select kind, dedupe_key from public.outbox where dedupe_key like $1 order by dedupe_key`,
    [`%${orderId}`],
  );

describe(`recording an order on ${TEST_DATABASE_KIND}`, () => {
  it('prices the checkout on the server: $105 of goods, $16 to Georgia, $9.35 tax', async () => {
    const { started } = await pricedCheckout();
    expect(started.totals).toEqual({
      subtotalCents: 10_500,
      discountCents: 0,
      shippingCents: 1600,
      taxCents: 935,
      totalCents: 13_035,
    });
    expect(started.amountCents).toBe(13_035);
  });

  it('refuses rates and a payment for a cart holding an out-of-stock product, opening no payment', async () => {
    const soldOut = withOutOfStock(catalogue, 7);
    const message = 'Line 2: Kojic Acid Soap is out of stock.';
    const shipping = createRateTableShipping();
    expect(await quoteRates(db, shipping, soldOut, { toAddress: address, lines: [scrubs, soap] })).toMatchObject({
      ok: false,
      message,
    });
    // A rate quoted while it was in stock does not carry it through once the catalogue says otherwise.
    const quoted = await quoteRates(db, shipping, catalogue, { toAddress: address, lines: [scrubs, soap] });
    if (!quoted.ok) throw new Error(quoted.message);
    const payments = createTestProcessor(db, { webhookSecret: WEBHOOK_SECRET });
    const [before] = await db.query<{ n: number }>('select count(*)::int as n from public.checkouts');
    expect(
      await startCheckout(db, payments, soldOut, null, { lines: [scrubs, soap], address, rateId: quoted.rates[0]?.id ?? '' }),
    ).toEqual({ ok: false, status: 400, message });
    const [after] = await db.query<{ n: number }>('select count(*)::int as n from public.checkouts');
    expect(after?.n).toBe(before?.n);
  });

  it('records nothing for a payment that has not gone through', async () => {
    const { payments, started } = await pricedCheckout();
    expect(await recordOrder(db, payments, started.paymentIntentId)).toMatchObject({ ok: false, status: 402 });
    const declined = await payments.confirm(started.clientSecret, { ...card, number: '4000000000000002' });
    expect(declined.status).toBe('requires_payment_method');
    expect(await recordOrder(db, payments, started.paymentIntentId)).toMatchObject({
      ok: false,
      status: 402,
      message: 'Your card was declined.',
    });
  });

  it('twenty simultaneous confirmations record one order, one label job and one pair of e-mail jobs', async () => {
    const { payments, started } = await pricedCheckout();
    expect((await payments.confirm(started.clientSecret, card)).status).toBe('succeeded');
    const results = await Promise.all(Array.from({ length: 20 }, () => recordOrder(db, payments, started.paymentIntentId)));
    const ids = new Set(results.map((r) => (r.ok ? r.order.id : r.message)));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.ok && r.order.created)).toHaveLength(1);
    const [orderId] = [...ids];
    if (!orderId) throw new Error('no order');
    const [order] = await db.query<{ total_cents: number; status: string; items: number }>(
      `select total_cents, status, (select count(*)::int from public.order_items where order_id = o.id) as items
       from public.orders o where payment_intent_id = $1`,
      [started.paymentIntentId],
    );
    expect(order).toEqual({ total_cents: 13_035, status: 'processing', items: 2 });
    expect((await jobsFor(orderId)).map((j) => j.kind)).toEqual(['order-label', 'order-email', 'order-email']);
  });

  it('answers a shopper who is not the checkout’s owner as if there were no such payment', async () => {
    const { payments, started } = await pricedCheckout();
    await payments.confirm(started.clientSecret, card);
    expect(
      await recordOrder(db, payments, started.paymentIntentId, { userId: '00000000-0000-4000-8000-0000000000a1' }),
    ).toMatchObject({ ok: false, status: 404 });
    expect(await recordOrder(db, payments, started.paymentIntentId, { userId: null })).toMatchObject({ ok: true });
  });

  it('never records an order whose payment does not match the checkout’s total', async () => {
    const { payments, started } = await pricedCheckout();
    await payments.confirm(started.clientSecret, card);
    // A processor answering another amount than the one the server asked for (which it never does on its own).
    const lying: PaymentsPort = {
      ...payments,
      retrieveIntent: async (id) => ({ ...(await payments.retrieveIntent(id)), amountCents: 1 }),
    };
    const logs = captureLogs('error');
    try {
      expect(await recordOrder(db, lying, started.paymentIntentId)).toMatchObject({ ok: false, status: 409 });
      expect(logs.records).toEqual([
        expect.objectContaining({
          msg: expect.stringMatching(/another amount than its checkout: no order recorded/),
          paidCents: 1,
        }),
      ]);
    } finally {
      logs.restore();
    }
    const [count] = await db.query<{ n: number }>(`select count(*)::int as n from public.orders where payment_intent_id = $1`, [
      started.paymentIntentId,
    ]);
    expect(count?.n).toBe(0);
  });

  it('updates the same payment when the cart changes before paying, and reuses it when nothing changed', async () => {
    const { payments, started } = await pricedCheckout([soap]);
    const quoted = await quoteRates(db, createRateTableShipping(), catalogue, { toAddress: address, lines: [soap, scrubs] });
    if (!quoted.ok) throw new Error(quoted.message);
    const rateId = quoted.rates[0]?.id ?? '';
    const changed = await startCheckout(db, payments, catalogue, null, {
      lines: [soap, scrubs],
      address,
      rateId,
      previousClientSecret: started.clientSecret,
    });
    if (!changed.ok) throw new Error(changed.message);
    expect(changed.paymentIntentId).toBe(started.paymentIntentId);
    const intent = await payments.retrieveIntent(changed.paymentIntentId);
    expect(intent.amountCents).toBe(changed.totals.totalCents);
    const again = await startCheckout(db, payments, catalogue, null, {
      lines: [soap, scrubs],
      address,
      rateId,
      previousClientSecret: changed.clientSecret,
    });
    expect(again).toMatchObject({ ok: true, paymentIntentId: started.paymentIntentId });
    // Someone else's secret (here: a made-up one for the same id) opens a new payment instead of touching this one.
    const other = await startCheckout(db, payments, catalogue, null, {
      lines: [soap, scrubs],
      address,
      rateId,
      previousClientSecret: `${started.paymentIntentId}_secret_guess`,
    });
    if (!other.ok) throw new Error(other.message);
    expect(other.paymentIntentId).not.toBe(started.paymentIntentId);
    const status: PaymentIntentStatus = (await payments.retrieveIntent(started.paymentIntentId)).status;
    expect(status).toBe('requires_payment_method');
  });

  it('a cart changed while its card is being confirmed is a 409 the checkout shows, and the payment keeps its amount', async () => {
    const { payments, started } = await pricedCheckout([soap]);
    const quoted = await quoteRates(db, createRateTableShipping(), catalogue, { toAddress: address, lines: [soap, scrubs] });
    if (!quoted.ok) throw new Error(quoted.message);
    // The card is confirmed after the change read the payment as still open, and before it updated it.
    const racing: PaymentsPort = {
      ...payments,
      retrieveIntent: async (id) => {
        const intent = await payments.retrieveIntent(id);
        await payments.confirm(started.clientSecret, card);
        return intent;
      },
    };
    const changed = await startCheckout(db, racing, catalogue, null, {
      lines: [soap, scrubs],
      address,
      rateId: quoted.rates[0]?.id ?? '',
      previousClientSecret: started.clientSecret,
    });
    expect(changed).toEqual({ ok: false, status: 409, message: CHECKOUT_PROBLEMS.paymentUnderWay });
    const intent = await payments.retrieveIntent(started.paymentIntentId);
    expect(intent).toMatchObject({ status: 'succeeded', amountCents: started.totals.totalCents });
    const [checkout] = await db.query<{ total_cents: number }>(
      `select total_cents from public.checkouts where payment_intent_id = $1`,
      [started.paymentIntentId],
    );
    expect(checkout?.total_cents).toBe(started.totals.totalCents);
  });

  it('a signed succeeded-payment event records the order once; a replay, a tampered or an unsigned event change nothing', async () => {
    const { payments, started } = await pricedCheckout();
    await payments.confirm(started.clientSecret, card);
    const event = JSON.stringify({
      id: `evt_${started.paymentIntentId}`,
      type: 'payment_intent.succeeded',
      data: { object: { id: started.paymentIntentId, object: 'payment_intent' } },
    });
    const orders = async () =>
      (
        await db.query<{ n: number }>(`select count(*)::int as n from public.orders where payment_intent_id = $1`, [
          started.paymentIntentId,
        ])
      )[0]?.n;

    expect(await handlePaymentEvent(db, payments, event, null)).toMatchObject({ status: 400 });
    expect(
      await handlePaymentEvent(db, payments, event.replace('succeeded', 'canceled'), signTestWebhook(event, WEBHOOK_SECRET)),
    ).toMatchObject({
      status: 400,
    });
    const stale = signTestWebhook(event, WEBHOOK_SECRET, Math.floor(Date.now() / 1000) - 3600);
    expect(await handlePaymentEvent(db, payments, event, stale)).toMatchObject({ status: 400 });
    expect(await orders()).toBe(0);

    expect(await handlePaymentEvent(db, payments, event, signTestWebhook(event, WEBHOOK_SECRET))).toEqual({
      status: 200,
      body: { received: true },
    });
    expect(await orders()).toBe(1);
    expect(await handlePaymentEvent(db, payments, event, signTestWebhook(event, WEBHOOK_SECRET))).toEqual({
      status: 200,
      body: { received: true, duplicate: true },
    });
    // The confirming request, arriving after the webhook, finds the same order.
    expect(await recordOrder(db, payments, started.paymentIntentId)).toMatchObject({ ok: true, order: { created: false } });
    expect(await orders()).toBe(1);
  });

  it('reconciliation records a payment that succeeded without an order, and leaves unpaid and recent checkouts alone', async () => {
    const paid = await pricedCheckout();
    await paid.payments.confirm(paid.started.clientSecret, card);
    const unpaid = await pricedCheckout();
    const recent = await pricedCheckout();
    await recent.payments.confirm(recent.started.clientSecret, card);
    // As if the server had stopped right after the payment, 20 minutes ago.
    await db.query(`update public.checkouts set updated_at = now() - interval '20 minutes' where payment_intent_id = any($1)`, [
      [paid.started.paymentIntentId, unpaid.started.paymentIntentId],
    ]);
    const logs = captureLogs('warn');
    try {
      const recorded = await reconcilePayments(db, paid.payments);
      expect(recorded).toHaveLength(1);
      expect(logs.records).toContainEqual(
        expect.objectContaining({
          msg: 'reconciliation recorded an order for a payment that had none',
          orderId: recorded[0],
          paymentIntentId: paid.started.paymentIntentId,
        }),
      );
      expect(await reconcilePayments(db, paid.payments)).toEqual([]);
    } finally {
      logs.restore();
    }
    const [recentOrder] = await db.query(`select id from public.orders where payment_intent_id = $1`, [
      recent.started.paymentIntentId,
    ]);
    expect(recentOrder).toBeUndefined();
  });

  it('buys an order’s label once, however often it is asked for, and never while the outbox is buying it', async () => {
    const { payments, started } = await pricedCheckout();
    await payments.confirm(started.clientSecret, card);
    const recorded = await recordOrder(db, payments, started.paymentIntentId);
    if (!recorded.ok) throw new Error(recorded.message);
    const orderId = recorded.order.id;
    let bought = 0;
    const table = createRateTableShipping();
    const shipping = {
      ...table,
      buyLabel: (request: Parameters<typeof table.buyLabel>[0]) => {
        bought++;
        return table.buyLabel(request);
      },
    };
    const deps = { db, shipping, publicOrigin: 'https://shop.example' };

    // The outbox worker holds the job: the endpoint waits rather than buying a second label.
    await db.query(`update public.outbox set locked_until = now() + interval '1 minute' where dedupe_key = $1`, [
      `label:${orderId}`,
    ]);
    expect(await createShipment(deps, orderId)).toMatchObject({ success: false, error: expect.stringMatching(/being created/) });
    await db.query(`update public.outbox set locked_until = null where dedupe_key = $1`, [`label:${orderId}`]);

    const answers = await Promise.all(Array.from({ length: 5 }, () => createShipment(deps, orderId)));
    const succeeded = answers.filter((a) => a.success);
    expect(succeeded.length).toBeGreaterThan(0);
    expect(new Set(succeeded.map((a) => a.tracking_number)).size).toBe(1);
    expect(succeeded[0]).toMatchObject({
      tracking_number: expect.stringMatching(/^TEST\d{18}$/),
      label_url: `https://shop.example/api/orders/${orderId}/label`,
    });
    expect(await createShipment(deps, orderId)).toEqual(succeeded[0]);
    expect(bought).toBe(1);
    const [job] = await db.query<{ done: boolean }>(
      `select done_at is not null as done from public.outbox where dedupe_key = $1`,
      [`label:${orderId}`],
    );
    expect(job?.done).toBe(true);
  });

  it('sends the shopper and the shop their e-mails: items, totals, address, the order page’s link, tracking once known', async () => {
    const { payments, started } = await pricedCheckout();
    await payments.confirm(started.clientSecret, card);
    const recorded = await recordOrder(db, payments, started.paymentIntentId);
    if (!recorded.ok) throw new Error(recorded.message);
    const orderId = recorded.order.id;
    const sent: MailMessage[] = [];
    const deps = { db, publicOrigin: 'https://shop.example', shopEmail: 'orders@shop.example' };
    const emailJob = orderEmailJob({ ...deps, mail: { name: 'capture', send: async (m) => void sent.push(m) } });
    const payload = async (audience: 'customer' | 'shop') => {
      const [row] = await db.query<{ payload: unknown }>(`select payload from public.outbox where dedupe_key = $1`, [
        `mail:${audience}:${orderId}`,
      ]);
      return JOBS['order-email'].parse(typeof row?.payload === 'string' ? JSON.parse(row.payload) : row?.payload);
    };

    // Before the label: no tracking number yet.
    await emailJob(await payload('customer'));
    const early = sent.pop();
    expect(early?.subject).toBe(`Your Aurelia order ${orderNumber(orderId)}`);
    expect(early?.text).not.toMatch(/Tracking number/);
    expect(early?.text).toContain('Your tracking number will appear on your order page');

    await labelJob({ ...deps, shipping: createRateTableShipping() })({ orderId });
    await emailJob(await payload('customer'));
    await emailJob(await payload('shop'));
    const [customer, shop] = sent;
    expect(customer?.to).toBe('grace@example.com');
    expect(shop).toMatchObject({ to: 'orders@shop.example', subject: `New order ${orderNumber(orderId)}: $130.35` });
    for (const mail of [customer, shop]) {
      for (const part of [mail?.text, mail?.html]) {
        expect(part).toContain('Clinical Scrubs');
        expect(part).toContain('$130.35');
        expect(part).toContain('12 Bull St');
        expect(part).toMatch(/TEST\d{18}/);
      }
      expect(mail?.text).toContain('2 × Clinical Scrubs (powder-blue, M): $90.00');
      expect(mail?.text).toContain('Shipping (Standard Shipping): $16.00');
    }
    expect(shop?.text).toContain('Grace Hopper <grace@example.com>');

    // The shopper's links to the order page, which the link's token opens without an account; the shop's to the
    // admin's page of the order, and carries no token.
    const token = /https:\/\/shop\.example\/order\?token=([\w%-]+)/.exec(customer?.text ?? '')?.[1] ?? '';
    expect(customer?.html).toContain(`href="https://shop.example/order?token=${token}"`);
    expect(shop?.text).toContain(`Open the order: https://shop.example/admin/orders/${orderId}`);
    expect(shop?.html).toContain(`href="https://shop.example/admin/orders/${orderId}"`);
    expect(`${shop?.text}${shop?.html}`).not.toContain('token=');
    expect((await orderByToken(db, decodeURIComponent(token)))?.id).toBe(orderId);
  });

  it('records whether a line was bought as final sale (not read from the catalogue later): its page and e-mail say so', async () => {
    const oil = { productId: 6, quantity: 1, selectedColor: null, selectedSize: null };
    const { payments, started } = await pricedCheckout([oil, soap]);
    await payments.confirm(started.clientSecret, card);
    const recorded = await recordOrder(db, payments, started.paymentIntentId);
    if (!recorded.ok) throw new Error(recorded.message);
    const orderId = recorded.order.id;
    const rows = await db.query<{ product_id: number; final_sale: boolean }>(
      'select product_id, final_sale from public.order_items where order_id = $1 order by id',
      [orderId],
    );
    expect(rows).toEqual([
      { product_id: 6, final_sale: true },
      { product_id: 7, final_sale: false },
    ]);
    const shopper = await newShopper(db, 'final-sale');
    await db.query('update public.orders set user_id = $2 where id = $1', [orderId, shopper.sub]);
    const page = await orderOfShopper(db, (fn) => asShopper(db, shopper, fn), orderId);
    expect(page?.items.map((i) => [i.name, i.finalSale])).toEqual([
      ['Turmeric Body Oil', true],
      ['Kojic Acid Soap', false],
    ]);
    const sent: MailMessage[] = [];
    const deps = { db, publicOrigin: 'https://shop.example', shopEmail: 'orders@shop.example' };
    await orderEmailJob({ ...deps, mail: { name: 'capture', send: async (m) => void sent.push(m) } })({
      orderId,
      audience: 'customer',
    });
    expect(sent[0]?.text).toContain(
      '1 × Turmeric Body Oil: $35.00 · Final sale: cannot be returned\n1 × Kojic Acid Soap: $15.00\n',
    );
  });

  it('an apartment or suite reaches the order, its page, the label and the e-mails; the next checkout offers it', async () => {
    const shopper = await newShopper(db, 'suite');
    const stranger = await newShopper(db, 'stranger');
    const prefill = (claims: ShopperClaims) =>
      asShopper(db, claims, (tx) =>
        checkoutPrefill(tx, { id: claims.sub, email: claims.email ?? '', firstName: null, lastName: null }),
      );
    expect(await prefill(shopper)).toEqual({ name: '', email: shopper.email, lastAddress: null });

    const to = { ...address, street2: 'Apt 4B' };
    const { payments, started } = await pricedCheckout([soap], shopper.sub, to);
    await payments.confirm(started.clientSecret, card);
    const recorded = await recordOrder(db, payments, started.paymentIntentId);
    if (!recorded.ok) throw new Error(recorded.message);
    const orderId = recorded.order.id;
    const own = await orderOfShopper(db, (fn) => asShopper(db, shopper, fn), orderId);
    expect(own?.address).toMatchObject({ street1: '12 Bull St', street2: 'Apt 4B' });

    const deps = { db, publicOrigin: 'https://shop.example', shopEmail: 'orders@shop.example' };
    // The label is bought for the whole address (the rate table draws it, Shippo is sent it as street2).
    const rateTable = createRateTableShipping();
    const labelsFor: unknown[] = [];
    const shipping = {
      ...rateTable,
      buyLabel: (r: LabelRequest) => {
        labelsFor.push(r.to);
        return rateTable.buyLabel(r);
      },
    };
    await labelJob({ ...deps, shipping })({ orderId });
    expect(labelsFor).toEqual([expect.objectContaining({ street1: '12 Bull St', street2: 'Apt 4B', zip: '31401' })]);
    const sent: MailMessage[] = [];
    const emailJob = orderEmailJob({ ...deps, mail: { name: 'capture', send: async (m) => void sent.push(m) } });
    await emailJob({ orderId, audience: 'customer' });
    expect(sent[0]?.text).toContain('12 Bull St\nApt 4B\nSavannah, GA 31401');

    // Their next checkout is offered where this one went; another shopper is offered nothing of it.
    expect(await prefill(shopper)).toEqual({
      name: 'Grace Hopper',
      email: shopper.email,
      lastAddress: {
        name: 'Grace Hopper',
        address: '12 Bull St',
        address2: 'Apt 4B',
        city: 'Savannah',
        state: 'GA',
        zipCode: '31401',
      },
    });
    expect((await prefill(stranger)).lastAddress).toBeNull();
  });
});
