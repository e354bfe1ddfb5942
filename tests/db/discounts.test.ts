/**
 * Discounts on a real database (decision 009; PGlite, or PostgreSQL with TEST_DATABASE_URL): what the server prices
 * is what is charged and what the order records, to the cent, line by line; and the database refuses amounts that
 * cannot be true.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { recordOrder } from '@/features/checkout/order.server';
import { quoteRates } from '@/features/checkout/rates.server';
import { startCheckout } from '@/features/checkout/start-checkout.server';
import { createTestProcessor } from '@/server/payments/test-processor.server';
import { createRateTableShipping } from '@/server/shipping/rate-table.server';
import type { Address } from '@/server/shipping/shipping.port';
import { loadCatalogueIndex } from '../unit/load-catalogue';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
const catalogue = loadCatalogueIndex();
const address: Address & { email: string } = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  street1: '12 Bull St',
  city: 'Savannah',
  state: 'GA',
  zip: '31401',
  country: 'US',
};
const card = { number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' };
const scrubs = { productId: 3, quantity: 2, selectedColor: 'powder-blue', selectedSize: 'M' };
const soap = { productId: 7, quantity: 1, selectedColor: null, selectedSize: null };

const priceOf = (id: number) => catalogue.get(id)?.priceCents ?? Number.NaN;

async function checkout(lines = [scrubs, soap]) {
  const payments = createTestProcessor(db, { webhookSecret: 'whsec_discounts' });
  const quoted = await quoteRates(db, createRateTableShipping(), catalogue, { toAddress: address, lines });
  if (!quoted.ok) throw new Error(quoted.message);
  const rate = quoted.rates.find((r) => r.service === 'Standard Shipping');
  if (!rate) throw new Error('no standard rate');
  const started = await startCheckout(db, payments, catalogue, null, { lines, address, rateId: rate.id });
  if (!started.ok) throw new Error(started.message);
  return { payments, started, rateCents: rate.amountCents };
}

const setOffer = (offer: { threshold: number; percent: number; active: boolean }) =>
  db.query(`update public.discount_offer set threshold_cents = $1, percent = $2, active = $3`, [
    offer.threshold,
    offer.percent,
    offer.active,
  ]);

describe(`the automatic offer on ${TEST_DATABASE_KIND}`, () => {
  afterEach(() => setOffer({ threshold: 10_000, percent: 10, active: false }));

  it('takes its percent off from its threshold: tax on the discounted subtotal, charged and recorded to the cent, per line', async () => {
    await setOffer({ threshold: 5_000, percent: 15, active: true });
    const { payments, started, rateCents } = await checkout();
    if (!started.ok) throw new Error('not started');
    const subtotal = 2 * priceOf(3) + priceOf(7);
    const discount = Math.floor((subtotal * 15 + 50) / 100);
    const tax = Math.round((subtotal - discount) * 0.089);
    expect(started.totals).toEqual({
      subtotalCents: subtotal,
      discountCents: discount,
      shippingCents: rateCents,
      taxCents: tax,
      totalCents: subtotal - discount + rateCents + tax,
    });
    const intent = await payments.retrieveIntent(started.paymentIntentId);
    expect(intent.amountCents).toBe(started.totals.totalCents);

    expect((await payments.confirm(started.clientSecret, card)).status).toBe('succeeded');
    const recorded = await recordOrder(db, payments, started.paymentIntentId);
    if (!recorded.ok) throw new Error(recorded.message);
    const [order] = await db.query<Record<string, unknown>>(
      `select subtotal_cents, discount_cents, offer_cents, discount_code, shipping_discount_cents, tax_cents, total_cents,
              (select sum(discount_cents)::int from public.order_items i where i.order_id = o.id) as lines_discount
         from public.orders o where id = $1`,
      [recorded.order.id],
    );
    expect(order).toEqual({
      subtotal_cents: subtotal,
      discount_cents: discount,
      offer_cents: discount,
      discount_code: null,
      shipping_discount_cents: 0,
      tax_cents: tax,
      total_cents: intent.amountCents,
      lines_discount: discount,
    });
  });

  it('changes nothing below its threshold or while off', async () => {
    await setOffer({ threshold: 1_000_000, percent: 50, active: true });
    const below = await checkout();
    if (!below.started.ok) throw new Error('not started');
    expect(below.started.totals.discountCents).toBe(0);
    await setOffer({ threshold: 0, percent: 50, active: false });
    const off = await checkout();
    if (!off.started.ok) throw new Error('not started');
    expect(off.started.totals.discountCents).toBe(0);
  });
});

describe(`the database's own guards on discounts on ${TEST_DATABASE_KIND}`, () => {
  const refused = async (sql: string, params: unknown[] = []) => {
    await expect(db.query(sql, params)).rejects.toThrow(/violates check constraint|violates unique constraint/);
  };

  it('keeps codes normalised, unique in any case, and their amounts within bounds', async () => {
    await db.query(`insert into public.discount_codes (code, kind, percent) values ('GUARD10', 'percent', 10)`);
    await refused(`insert into public.discount_codes (code, kind, percent) values ('GUARD10', 'percent', 20)`);
    await refused(`insert into public.discount_codes (code, kind, percent) values ('guard10', 'percent', 20)`);
    await refused(`insert into public.discount_codes (code, kind, percent) values ('OVER', 'percent', 101)`);
    await refused(`insert into public.discount_codes (code, kind, percent) values ('NONE', 'percent', 0)`);
    await refused(`insert into public.discount_codes (code, kind, amount_cents) values ('NEG', 'amount', -1)`);
    await refused(`insert into public.discount_codes (code, kind, percent, amount_cents) values ('BOTH', 'amount', 5, 100)`);
    await refused(`insert into public.discount_codes (code, kind) values ('PERCENTLESS', 'percent')`);
    await refused(`insert into public.discount_codes (code, kind, usage_limit) values ('ZEROUSE', 'free_shipping', 0)`);
    await refused(
      `insert into public.discount_codes (code, kind, starts_at, ends_at) values ('BACKWARDS', 'free_shipping', now(), now() - interval '1 day')`,
    );
    await refused(`update public.discount_offer set percent = 101`);
  });

  it('never stores a discount past the subtotal, a negative one, or a total that does not add up', async () => {
    const row = (discount: number, total: number) => [
      JSON.stringify({ name: 'x' }),
      JSON.stringify({ id: 'r' }),
      1_000,
      discount,
      0,
      Math.round((1_000 - discount) * 0.089),
      total,
    ];
    // Without a code, the whole discount is the offer's.
    const insert = `insert into public.checkouts (lines, address, rate, parcel_weight_lb, subtotal_cents, discount_cents,
        offer_cents, shipping_cents, tax_cents, total_cents, content_hash)
      values ('[]', $1::jsonb, $2::jsonb, 1, $3, $4, $4, $5, $6, $7, 'h')`;
    await db.query(insert, row(100, 900 + 80));
    const coded = `insert into public.checkouts (lines, address, rate, parcel_weight_lb, subtotal_cents, discount_cents,
        offer_cents, shipping_cents, tax_cents, total_cents, content_hash, discount_code)
      values ('[]', $1::jsonb, $2::jsonb, 1, $3, $4, $8, $5, $6, $7, 'h', $9)`;
    await db.query(coded, [...row(100, 900 + 80), 0, 'SAVE1']);
    // An offer's part larger than the discount, or a code's part with no code.
    await refused(coded, [...row(100, 900 + 80), 101, 'SAVE1']);
    await refused(insert.replace('$4, $4', '$4, 0'), row(100, 900 + 80));
    await refused(insert, row(1_001, 0));
    await refused(insert, row(-1, 1_000 + 89));
    await refused(insert, row(100, 1_000 + 80));
  });
});
