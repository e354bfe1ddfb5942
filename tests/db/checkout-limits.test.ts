/**
 * The checkout's money path at its edges, on a real database: a catalogue that reaches the server with a price the
 * editor's save refuses (a file edited by hand, an old build), or a cart whose lines together are more than one card
 * payment can take, or heavier than the shop's one parcel, is refused in the shop's words (409, or 400 at the rates),
 * never a 500 from the database's integer columns, and opens no payment and holds nothing.
 */
import { describe, expect, it } from 'vitest';
import type { CatalogueIndex, CatalogueItem } from '@/features/catalogue/catalogue';
import { MAX_PRICE_CENTS } from '@/features/catalogue/product.schema';
import { FALLBACK_RATE_ID } from '@/features/checkout/checkout';
import { parcelFor, quoteKey, quoteRates } from '@/features/checkout/rates.server';
import { startCheckout } from '@/features/checkout/start-checkout.server';
import { MAX_CHARGE_CENTS } from '@/lib/pricing';
import { asService } from '@/server/db/roles.server';
import { createTestProcessor } from '@/server/payments/test-processor.server';
import { createRateTableShipping } from '@/server/shipping/rate-table.server';
import { type Address, shopParcel } from '@/server/shipping/shipping.port';
import { loadCatalogueIndex } from '../unit/load-catalogue';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
const seed = loadCatalogueIndex();
const address: Address & { email: string } = {
  name: 'Grace Hopper',
  email: 'grace@example.com',
  street1: '12 Bull St',
  city: 'Savannah',
  state: 'GA',
  zip: '31401',
  country: 'US',
};
const line = (productId: number, quantity = 5) => ({ productId, quantity, selectedColor: null, selectedSize: null });
const OIL = 6;
const SOAP = 7;
const CREAM = 1;

/** The catalogue with some products changed, as a hand-edited file or an older build could bring them. */
function catalogueWith(changes: Record<number, Partial<CatalogueItem>>): CatalogueIndex {
  return new Map([...seed].map(([id, item]) => [id, { ...item, ...changes[id] }] as const));
}

const counts = async () => {
  const [row] = await asService(db, (tx) =>
    tx.query<{ checkouts: number; intents: number; holds: number }>(
      `select (select count(*)::int from public.checkouts) as checkouts,
              (select count(*)::int from public.test_payment_intents) as intents,
              (select count(*)::int from public.stock_holds) as holds`,
    ),
  );
  return row;
};

const payments = () => createTestProcessor(db, { webhookSecret: 'whsec_checkout_limits' });
const checkout = (catalogue: CatalogueIndex, lines: ReturnType<typeof line>[], rateId = FALLBACK_RATE_ID) =>
  startCheckout(db, payments(), catalogue, null, { lines, address, rateId });

describe(`the checkout at the edges of what can be charged, on ${TEST_DATABASE_KIND}`, () => {
  it('five at the highest price an editor can save are one payment, within what a card payment can take', async () => {
    const started = await checkout(catalogueWith({ [OIL]: { priceCents: MAX_PRICE_CENTS } }), [line(OIL)]);
    if (!started.ok) throw new Error(started.message);
    expect(started.totals.subtotalCents).toBe(5 * MAX_PRICE_CENTS);
    expect(started.amountCents).toBeLessThanOrEqual(MAX_CHARGE_CENTS);
    const [intent] = await asService(db, (tx) =>
      tx.query<{ amount_cents: number }>('select amount_cents from public.test_payment_intents where id = $1', [
        started.paymentIntentId,
      ]),
    );
    expect(intent?.amount_cents).toBe(started.amountCents);
  });

  it('an item priced at nothing is not sold, alone or beside a paid one: a 409 in words, no payment, nothing held', async () => {
    const free = catalogueWith({ [OIL]: { priceCents: 0 } });
    const before = await counts();
    const message =
      'Turmeric Body Oil cannot be bought online at the moment: its price is being corrected. Please take it out of your cart and try again later.';
    expect(await checkout(free, [line(OIL)])).toEqual({ ok: false, status: 409, code: 'price_unavailable', message });
    expect(await checkout(free, [line(SOAP, 1), line(OIL)])).toEqual({
      ok: false,
      status: 409,
      code: 'price_unavailable',
      message,
    });
    // A price that is not a whole number of cents is the same.
    expect(await checkout(catalogueWith({ [OIL]: { priceCents: 0.5 } }), [line(OIL)])).toMatchObject({
      status: 409,
      code: 'price_unavailable',
    });
    expect(await counts()).toEqual(before);
  });

  it('a total beyond one card payment is refused in words (409), never a 500 from the integer columns', async () => {
    const before = await counts();
    const tooMuch = (total: string) => ({
      ok: false,
      status: 409,
      code: 'over_payment_limit',
      message: `This order comes to ${total}, more than one card payment can take ($999,999.99). Please take some items out and order them separately.`,
    });
    // Two lines each at the highest price: each alone is fine, together they are not.
    const dear = catalogueWith({ [OIL]: { priceCents: MAX_PRICE_CENTS }, [CREAM]: { priceCents: MAX_PRICE_CENTS } });
    expect(await checkout(dear, [line(OIL), line(CREAM)])).toEqual(tooMuch('$1,997,999.95'));
    // Prices the editor once saved: $30,000,000 and $1e20, each a 500 ('out of range for type integer') before.
    expect(await checkout(catalogueWith({ [OIL]: { priceCents: 3_000_000_000 } }), [line(OIL)])).toMatchObject({
      status: 409,
      code: 'over_payment_limit',
    });
    // $1e20: more cents than the server counts exactly, so not a price it can charge at all.
    expect(await checkout(catalogueWith({ [OIL]: { priceCents: 1e22 } }), [line(OIL, 1)])).toMatchObject({
      status: 409,
      code: 'price_unavailable',
    });
    expect(await counts()).toEqual(before);
  });

  it('a total under the smallest card payment ($0.50) is refused in words, not sent to the processor', async () => {
    const cheap = catalogueWith({ [SOAP]: { priceCents: 1 } });
    const lines = [line(SOAP, 1)];
    // A carrier's rate of nothing (a free service): 1 cent of goods and no shipping.
    const rateId = 'free-rate-test';
    await asService(db, (tx) =>
      tx.query(
        `insert into public.shipping_quotes (rate_id, quote_key, provider, service, amount_cents, estimated_days, expires_at)
         values ($1, $2, 'Test', 'Free', 0, 3, now() + interval '1 hour')`,
        [rateId, quoteKey(address, parcelFor(lines, cheap))],
      ),
    );
    const before = await counts();
    expect(await checkout(cheap, lines, rateId)).toEqual({
      ok: false,
      status: 409,
      code: 'under_payment_minimum',
      message: 'This order comes to $0.01, less than the smallest card payment ($0.50). Please add to your cart.',
    });
    expect(await counts()).toEqual(before);
  });

  it('a parcel heavier than the shop sends is refused in words, at the rates (400) and at the checkout (409)', async () => {
    const message = 'This order weighs 300 lb, more than the 150 lb the shop sends in one parcel. Please order it in parts.';
    const heavy = catalogueWith({ [OIL]: { weight: 30 }, [CREAM]: { weight: 30 } });
    const lines = [line(OIL), line(CREAM)];
    expect(parcelFor(lines, heavy)).toEqual(shopParcel(300));
    expect(await quoteRates(db, createRateTableShipping(), heavy, { toAddress: address, lines })).toEqual({
      ok: false,
      status: 400,
      message,
    });
    const before = await counts();
    expect(await checkout(heavy, lines)).toEqual({ ok: false, status: 409, code: 'too_heavy', message });
    // A weight an editor once saved (1e20 lb): the parcel's weight column would overflow; refused in words instead.
    expect(await checkout(catalogueWith({ [OIL]: { weight: 1e20 } }), [line(OIL, 1)])).toMatchObject({
      status: 409,
      code: 'too_heavy',
    });
    expect(await counts()).toEqual(before);
  });
});
