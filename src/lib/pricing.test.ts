import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  estimatedShippingCents,
  fallbackShippingCents,
  MAX_CHARGE_CENTS,
  MAX_PARCEL_LB,
  maxUnitPriceCents,
  orderTotals,
  parcelWeightLb,
  SHIPPING_ALLOWANCE_CENTS,
  shippingCents,
  taxCents,
} from './pricing';

describe('pricing (product spec)', () => {
  it('charges 8.9% tax on the subtotal, rounded to the cent', () => {
    expect(taxCents(10_000)).toBe(890);
    expect(taxCents(4_500)).toBe(401); // 400.5 → 401
    expect(taxCents(1_000)).toBe(89);
    expect(taxCents(0)).toBe(0);
  });

  it('ships free from a $500 subtotal, and charges the chosen rate below it', () => {
    expect(shippingCents(49_999, 1_500)).toBe(1_500);
    expect(shippingCents(50_000, 1_500)).toBe(0);
    expect(shippingCents(90_000, 4_500)).toBe(0);
  });

  it('totals subtotal + shipping + tax', () => {
    expect(orderTotals(4_500, 1_500)).toEqual({
      subtotalCents: 4_500,
      discountCents: 0,
      shippingCents: 1_500,
      taxCents: 401,
      totalCents: 6_401,
    });
    expect(orderTotals(50_000, 1_500)).toEqual({
      subtotalCents: 50_000,
      discountCents: 0,
      shippingCents: 0,
      taxCents: 4_450,
      totalCents: 54_450,
    });
    fc.assert(
      fc.property(fc.nat(10_000_000), fc.nat(100_000), (subtotal, rate) => {
        const t = orderTotals(subtotal, rate);
        return (
          t.totalCents === t.subtotalCents + t.shippingCents + t.taxCents &&
          Number.isInteger(t.taxCents) &&
          (subtotal >= 50_000 ? t.shippingCents === 0 : t.shippingCents === rate)
        );
      }),
    );
  });

  it('takes a discount off the subtotal before tax: total = subtotal − discount + shipping + tax, tax on the difference', () => {
    expect(orderTotals(10_000, 1_500, { discountCents: 1_000 })).toEqual({
      subtotalCents: 10_000,
      discountCents: 1_000,
      shippingCents: 1_500,
      taxCents: 801, // 8.9 % of $90.00
      totalCents: 9_000 + 1_500 + 801,
    });
    // A free-shipping code waives the rate whatever the subtotal.
    expect(orderTotals(4_500, 1_500, { discountCents: 0, freeShipping: true }).shippingCents).toBe(0);
    // A discount is never more than the subtotal, nor less than nothing.
    expect(orderTotals(4_500, 1_500, { discountCents: 9_999 })).toMatchObject({
      discountCents: 4_500,
      taxCents: 0,
      totalCents: 1_500,
    });
    expect(orderTotals(4_500, 1_500, { discountCents: -5 }).discountCents).toBe(0);
  });

  it('judges the $500 free-shipping threshold after the discount, on what the shopper pays for the goods', () => {
    // $520 of goods, $30 off: $490 paid for goods, so the rate applies.
    expect(orderTotals(52_000, 1_500, { discountCents: 3_000 }).shippingCents).toBe(1_500);
    // $520 of goods, $20 off: exactly $500, so shipping is free.
    expect(orderTotals(52_000, 1_500, { discountCents: 2_000 }).shippingCents).toBe(0);
  });

  it('keeps every total whole, never negative, with tax on the discounted subtotal (any subtotal, rate and discount)', () => {
    fc.assert(
      fc.property(
        fc.nat(99_999_999),
        fc.nat(100_000),
        fc.integer({ min: -1_000, max: 100_000_000 }),
        fc.boolean(),
        (subtotal, rate, discount, free) => {
          const t = orderTotals(subtotal, rate, { discountCents: discount, freeShipping: free });
          return (
            t.discountCents >= 0 &&
            t.discountCents <= subtotal &&
            t.taxCents === taxCents(subtotal - t.discountCents) &&
            t.totalCents === t.subtotalCents - t.discountCents + t.shippingCents + t.taxCents &&
            t.totalCents >= 0 &&
            [t.discountCents, t.shippingCents, t.taxCents, t.totalCents].every(Number.isSafeInteger) &&
            t.shippingCents === (free || subtotal - t.discountCents >= 50_000 ? 0 : rate)
          );
        },
      ),
    );
  });

  it('weighs the parcel: item weight (1 lb when unknown) times quantity, at least 0.5 lb', () => {
    const weights = new Map([
      [1, 0.6],
      [3, 1.2],
    ]);
    const weightOf = (id: number) => weights.get(id);
    expect(parcelWeightLb([{ productId: 1, quantity: 2 }], weightOf)).toBe(1.2);
    expect(
      parcelWeightLb(
        [
          { productId: 1, quantity: 1 },
          { productId: 3, quantity: 2 },
        ],
        weightOf,
      ),
    ).toBe(3);
    expect(parcelWeightLb([{ productId: 99, quantity: 2 }], weightOf)).toBe(2);
    expect(parcelWeightLb([{ productId: 1, quantity: 0 }], weightOf)).toBe(0.5);
    expect(parcelWeightLb([], weightOf)).toBe(0.5);
  });

  it('estimates shipping by weight before the state is known', () => {
    const table: [number, number][] = [
      [0.5, 1000],
      [1, 1000],
      [1.01, 1500],
      [3, 1500],
      [3.5, 2500],
      [5, 2500],
      [7, 3500],
      [10, 3500],
      [10.2, 4500],
      [40, 4500],
    ];
    for (const [lb, cents] of table) expect(estimatedShippingCents(lb), `${lb} lb`).toBe(cents);
  });

  it('falls back to $10 for nearby states, else $15, plus $3 per whole pound', () => {
    expect(fallbackShippingCents('GA', 0.5)).toBe(1000);
    expect(fallbackShippingCents('fl', 2.9)).toBe(1600);
    for (const state of ['GA', 'FL', 'AL', 'SC', 'NC', 'TN']) expect(fallbackShippingCents(state, 1)).toBe(1300);
    expect(fallbackShippingCents('NY', 0.5)).toBe(1500);
    expect(fallbackShippingCents('CA', 3.2)).toBe(2400);
  });

  it('prices at most what one card payment can take: five at the ceiling, with tax and shipping, fit; a cent more does not', () => {
    // Stripe's largest charge in US dollars.
    expect(MAX_CHARGE_CENTS).toBe(99_999_999);
    // The allowance for shipping is more than the shop's own rate for its heaviest parcel, to anywhere.
    expect(SHIPPING_ALLOWANCE_CENTS).toBeGreaterThanOrEqual(fallbackShippingCents('CA', MAX_PARCEL_LB));
    const charged = (price: number, quantity: number) => quantity * price + taxCents(quantity * price) + SHIPPING_ALLOWANCE_CENTS;
    for (const quantity of [1, 2, 5]) {
      const ceiling = maxUnitPriceCents(quantity);
      expect(Number.isSafeInteger(ceiling)).toBe(true);
      expect(charged(ceiling, quantity), `${quantity} at the ceiling`).toBeLessThanOrEqual(MAX_CHARGE_CENTS);
      expect(charged(ceiling + 1, quantity), `${quantity} at a cent more`).toBeGreaterThan(MAX_CHARGE_CENTS);
      // Whatever shipping the order really pays (free from $500) is within the allowance.
      expect(orderTotals(quantity * ceiling, SHIPPING_ALLOWANCE_CENTS).totalCents).toBeLessThanOrEqual(MAX_CHARGE_CENTS);
    }
    expect(maxUnitPriceCents(5)).toBe(18_347_107);
  });
});
