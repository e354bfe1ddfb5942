import { describe, expect, it } from 'vitest';
import { discountLines, minus, recordedDiscount } from './discount-lines';

describe('an order’s discount lines', () => {
  it('writes an amount taken off with a true minus sign', () => {
    expect(minus(525)).toBe('\u2212$5.25');
  });

  it('has none when nothing was discounted, or nothing is known', () => {
    expect(discountLines(null)).toEqual([]);
    expect(discountLines({ code: null, discountCents: 0, offerCents: 0, freeShipping: false })).toEqual([]);
  });

  it('gives the offer (with its percentage when known) and then the code a line each, the code’s being what the offer did not take', () => {
    expect(discountLines({ code: 'SAVE10', discountCents: 1523, offerCents: 525, freeShipping: false, offerPercent: 5 })).toEqual(
      [
        { key: 'offer', label: 'Automatic offer (5% off)', amount: '\u2212$5.25', cents: 525 },
        { key: 'code', label: 'Code SAVE10', amount: '\u2212$9.98', cents: 998 },
      ],
    );
  });

  it('says Free shipping for a free-shipping code, which takes nothing off the goods', () => {
    expect(discountLines({ code: 'SHIPFREE', discountCents: 0, offerCents: 0, freeShipping: true })).toEqual([
      { key: 'code', label: 'Code SHIPFREE', amount: 'Free shipping', cents: 0 },
    ]);
  });

  it('reads the recorded columns: a code that waived shipping is a free-shipping one', () => {
    const row = { discount_code: 'SHIPFREE', discount_cents: 0, offer_cents: 0, shipping_discount_cents: 1600 };
    expect(recordedDiscount(row)).toEqual({ code: 'SHIPFREE', discountCents: 0, offerCents: 0, freeShipping: true });
    // An order of $500 or more ships free anyway: the code waived nothing, and took nothing off the goods.
    expect(discountLines(recordedDiscount({ ...row, shipping_discount_cents: 0 }))).toEqual([
      { key: 'code', label: 'Code SHIPFREE', amount: 'Free shipping', cents: 0 },
    ]);
    // A code that took something off the goods is not a free-shipping one.
    expect(
      recordedDiscount({ ...row, discount_code: 'SAVE10', discount_cents: 900, offer_cents: 0, shipping_discount_cents: 0 }),
    ).toMatchObject({ freeShipping: false });
    expect(recordedDiscount({ discount_code: null, discount_cents: 700, offer_cents: 700, shipping_discount_cents: 0 })).toEqual({
      code: null,
      discountCents: 700,
      offerCents: 700,
      freeShipping: false,
    });
  });
});
