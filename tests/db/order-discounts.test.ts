/**
 * An order's discounts, as every read model shows them (decision 009): the order pages, My Orders, the admin's order
 * page and both order e-mails read the columns the order recorded (discount_code, discount_cents, offer_cents,
 * shipping_discount_cents), so each shows the offer and the code as lines of their own, with the amounts the server
 * charged. On PGlite, or PostgreSQL with TEST_DATABASE_URL.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { orderForAdmin } from '@/features/admin/orders/order-queries.server';
import { packingSlipsPdf, slipOrders } from '@/features/admin/orders/packing-slips.server';
import { orderEmailJob } from '@/features/checkout/fulfilment.server';
import { recordOrder } from '@/features/checkout/order.server';
import { quoteRates } from '@/features/checkout/rates.server';
import { startCheckout } from '@/features/checkout/start-checkout.server';
import { discountLines } from '@/features/orders/discount-lines';
import { orderByToken, orderOfShopper } from '@/features/orders/order-page.server';
import { listOrders } from '@/features/orders/orders.server';
import { asService, asShopper, type ShopperClaims } from '@/server/db/roles.server';
import type { MailMessage } from '@/server/mail/mail.port';
import { JOBS } from '@/server/outbox/jobs.server';
import { createTestProcessor } from '@/server/payments/test-processor.server';
import { createRateTableShipping } from '@/server/shipping/rate-table.server';
import { loadCatalogueIndex } from '../unit/load-catalogue';
import { drawnText } from '../unit/pdf-text';
import { newShopper } from './shopper-fixtures';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
const catalogue = loadCatalogueIndex();
const address = {
  name: 'Grace Hopper',
  email: 'grace@example.com',
  street1: '12 Bull St',
  city: 'Savannah',
  state: 'GA',
  zip: '31401',
  country: 'US' as const,
};
const scrubs = { productId: 3, quantity: 2, selectedColor: 'powder-blue', selectedSize: 'M' };
const soap = { productId: 7, quantity: 1, selectedColor: null, selectedSize: null };
const card = { number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' };

/** Buys scrubs and a soap ($105) as `shopper` through the server's own checkout, with the offer as it is set. */
async function buyAsShopper(shopper: ShopperClaims) {
  const payments = createTestProcessor(db, { webhookSecret: 'whsec_order_discounts' });
  const lines = [scrubs, soap];
  const quoted = await quoteRates(db, createRateTableShipping(), catalogue, { toAddress: address, lines });
  if (!quoted.ok) throw new Error(quoted.message);
  const standard = quoted.rates.find((r) => r.service === 'Standard Shipping');
  if (!standard) throw new Error('no standard rate');
  const started = await startCheckout(db, payments, catalogue, shopper.sub, { lines, address, rateId: standard.id });
  if (!started.ok) throw new Error(started.message);
  await payments.confirm(started.clientSecret, card);
  const recorded = await recordOrder(db, payments, started.paymentIntentId);
  if (!recorded.ok) throw new Error(recorded.message);
  return { orderId: recorded.order.id, totals: started.totals };
}

/** The e-mail job's payload for the order, as the outbox holds it (the customer's carries the page's token). */
async function mailPayload(orderId: string, audience: 'customer' | 'shop') {
  const [row] = await db.query<{ payload: unknown }>(`select payload from public.outbox where dedupe_key = $1`, [
    `mail:${audience}:${orderId}`,
  ]);
  return JOBS['order-email'].parse(typeof row?.payload === 'string' ? JSON.parse(row.payload) : row?.payload);
}

describe(`an order's discount lines on ${TEST_DATABASE_KIND}`, () => {
  it('the automatic offer, priced at checkout, is a line on the order pages, My Orders, the admin page and both e-mails', async () => {
    await db.query(`update public.discount_offer set active = true, threshold_cents = 10000, percent = 10, combines = false`);
    try {
      const shopper = await newShopper(db, 'offer');
      const { orderId, totals } = await buyAsShopper(shopper);
      // $105 of goods, 10 % off from $100: $10.50; tax on $94.50 is $8.41; $16 to Georgia.
      expect(totals).toEqual({
        subtotalCents: 10_500,
        discountCents: 1050,
        shippingCents: 1600,
        taxCents: 841,
        totalCents: 11_891,
      });
      const expected = { code: null, discountCents: 1050, offerCents: 1050, freeShipping: false };

      const own = await orderOfShopper(db, (fn) => asShopper(db, shopper, fn), orderId);
      expect(own?.discount).toEqual(expected);
      expect(own?.totalCents).toBe(11_891);
      expect(discountLines(own?.discount)).toEqual([
        { key: 'offer', label: 'Automatic offer', amount: '\u2212$10.50', cents: 1050 },
      ]);

      const [listed] = await asShopper(db, shopper, (tx) => listOrders(tx, catalogue));
      expect(listed?.discount).toEqual(expected);

      const admin = await asService(db, (tx) => orderForAdmin(tx, orderId));
      expect(admin?.discount).toEqual(expected);

      const sent: MailMessage[] = [];
      const job = orderEmailJob({
        db,
        publicOrigin: 'https://shop.example',
        shopEmail: 'orders@shop.example',
        mail: { name: 'capture', send: async (m) => void sent.push(m) },
      });
      await job(await mailPayload(orderId, 'customer'));
      await job(await mailPayload(orderId, 'shop'));
      expect(sent).toHaveLength(2);
      for (const mail of sent) {
        expect(mail.text).toContain(
          'Subtotal: $105.00\nAutomatic offer: \u2212$10.50\nShipping (Standard Shipping): $16.00\nTax: $8.41\nTotal: $118.91',
        );
        expect(mail.html).toContain('Automatic offer');
      }
      // The guest's page, opened with the e-mail's token, reads the same columns.
      const token = /order\?token=([\w%-]+)/.exec(sent[0]?.text ?? '')?.[1] ?? '';
      expect((await orderByToken(db, decodeURIComponent(token)))?.discount).toEqual(expected);

      // The packing slip shows no money, so no discount line either.
      const slip = drawnText(
        await packingSlipsPdf(await asService(db, (tx) => slipOrders(tx, [orderId], 'America/New_York', catalogue))),
      );
      expect(slip).toEqual(expect.arrayContaining(['PACKING SLIP', 'Clinical Scrubs']));
      expect(slip.join(' ')).not.toMatch(/\$\d|\u2212|offer|Code /i);
    } finally {
      await db.query(`update public.discount_offer set active = false`);
    }
  });

  it('a code’s line names the code and the amount it took off; a free-shipping code says so; no discount, no line', async () => {
    const shopper = await newShopper(db, 'code');
    const place = async (code: string | null, discount: number, offer: number, shippingWaived: number, shipping: number) => {
      const goods = 10_500 - discount;
      const tax = Math.round(goods * 0.089);
      const [row] = await db.query<{ id: string }>(
        `insert into public.orders (user_id, customer_email, customer_name, subtotal_cents, discount_code, discount_cents,
           offer_cents, shipping_discount_cents, shipping_cents, tax_cents, total_cents, payment_intent_id,
           shipping_address, shipping_method, status)
         values ($1, $2, 'Ann Lee', 10500, $3, $4, $5, $6, $7, $8, $9, $10, '{}', '{"service":"Standard Shipping"}',
           'processing') returning id::text`,
        [
          shopper.sub,
          shopper.email,
          code,
          discount,
          offer,
          shippingWaived,
          shipping,
          tax,
          goods + shipping + tax,
          `pi_${randomUUID()}`,
        ],
      );
      if (!row) throw new Error('no order');
      return row.id;
    };
    const combined = await place('SAVE10', 1523, 525, 0, 1600);
    const shipFree = await place('SHIPFREE', 0, 0, 1600, 0);
    const none = await place(null, 0, 0, 0, 1600);

    const page = (id: string) => orderOfShopper(db, (fn) => asShopper(db, shopper, fn), id);
    expect(discountLines((await page(combined))?.discount)).toEqual([
      { key: 'offer', label: 'Automatic offer', amount: '\u2212$5.25', cents: 525 },
      { key: 'code', label: 'Code SAVE10', amount: '\u2212$9.98', cents: 998 },
    ]);
    expect(discountLines((await page(shipFree))?.discount)).toEqual([
      { key: 'code', label: 'Code SHIPFREE', amount: 'Free shipping', cents: 0 },
    ]);
    expect(discountLines((await page(none))?.discount)).toEqual([]);

    const history = await asShopper(db, shopper, (tx) => listOrders(tx, catalogue));
    expect(history.find((o) => o.id === combined)?.discount).toEqual({
      code: 'SAVE10',
      discountCents: 1523,
      offerCents: 525,
      freeShipping: false,
    });
    const admin = await asService(db, (tx) => orderForAdmin(tx, shipFree));
    expect(admin?.discount).toEqual({ code: 'SHIPFREE', discountCents: 0, offerCents: 0, freeShipping: true });
  });
});
