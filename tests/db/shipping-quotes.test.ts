/**
 * Shipping quotes against a real database: every rate the shop shows is remembered with what it was quoted for, and
 * the payment step can only take a rate's amount from there (decision 004).
 */
import { describe, expect, it } from 'vitest';
import { FALLBACK_RATE_ID } from '@/features/checkout/checkout';
import { chosenRate, parcelFor, quoteRates } from '@/features/checkout/rates.server';
import { asService } from '@/server/db/roles.server';
import { createRateTableShipping } from '@/server/shipping/rate-table.server';
import type { Address, ShippingPort } from '@/server/shipping/shipping.port';
import { loadCatalogueIndex } from '../unit/load-catalogue';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
const catalogue = loadCatalogueIndex();
const shipping = createRateTableShipping();
const savannah: Address = {
  name: 'Maya Thompson',
  street1: '1 Bull St',
  city: 'Savannah',
  state: 'GA',
  zip: '31401',
  country: 'US',
};
const portland: Address = { ...savannah, street1: '9 Oak St', city: 'Portland', state: 'OR', zip: '97201' };
const soap = { productId: 7, quantity: 2, selectedColor: null, selectedSize: null };

describe(`shipping quotes on ${TEST_DATABASE_KIND}`, () => {
  it('quotes the cart’s parcel from the catalogue and remembers each rate for that address and weight', async () => {
    const result = await quoteRates(db, shipping, catalogue, { toAddress: savannah, lines: [soap], parcel: { weight: 99 } });
    if (!result.ok) throw new Error(result.message);
    expect(result.rates.length).toBeGreaterThan(0);
    const parcel = parcelFor([soap], catalogue);
    for (const rate of result.rates) {
      expect(await asService(db, (tx) => chosenRate(tx, rate.id, savannah, parcel))).toEqual(rate);
      // Not for another address, nor for another weight: the amount was computed for these.
      expect(await asService(db, (tx) => chosenRate(tx, rate.id, portland, parcel))).toBeNull();
      expect(
        await asService(db, (tx) => chosenRate(tx, rate.id, savannah, { ...parcel, weightLb: parcel.weightLb + 1 })),
      ).toBeNull();
    }
  });

  it('knows no rate it never quoted, and no rate past its expiry', async () => {
    const parcel = parcelFor([soap], catalogue);
    expect(await asService(db, (tx) => chosenRate(tx, 'table_madeup', savannah, parcel))).toBeNull();
    const result = await quoteRates(db, shipping, catalogue, { toAddress: savannah, lines: [soap] });
    if (!result.ok) throw new Error(result.message);
    const [first] = result.rates;
    if (!first) throw new Error('no rate');
    await db.query(`update public.shipping_quotes set expires_at = now() - interval '1 second' where rate_id = $1`, [first.id]);
    expect(await asService(db, (tx) => chosenRate(tx, first.id, savannah, parcel))).toBeNull();
  });

  it('prices the fallback rate by its rule, whatever the browser says it costs', async () => {
    const parcel = parcelFor([{ ...soap, quantity: 5 }], catalogue);
    const rate = await asService(db, (tx) => chosenRate(tx, FALLBACK_RATE_ID, savannah, parcel));
    expect(rate).toMatchObject({ service: 'Standard Shipping', amountCents: 1000 + 300 * Math.floor(parcel.weightLb) });
  });

  it('refuses lines the catalogue does not sell, and says what the carrier said when it fails', async () => {
    expect(
      await quoteRates(db, shipping, catalogue, { toAddress: savannah, lines: [{ ...soap, productId: 999 }] }),
    ).toMatchObject({ ok: false, status: 400, message: expect.stringMatching(/Line 1: product 999 is not in the catalogue/) });
    const down: ShippingPort = {
      name: 'down',
      rates: async () => {
        throw new Error('carrier timed out');
      },
      buyLabel: async () => {
        throw new Error('unused');
      },
      buyReturnLabel: async () => {
        throw new Error('unused');
      },
    };
    expect(await quoteRates(db, down, catalogue, { toAddress: savannah, lines: [soap] })).toEqual({
      ok: false,
      status: 502,
      message: 'carrier timed out',
    });
  });
});
