import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { taxCents } from '@/lib/pricing';
import { paidForUnits, priceLineRefund, type RefundableItem } from './refund-lines';

const item = (id: string, priceCents: number, quantity: number, discountCents: number, refundedQuantity = 0): RefundableItem => ({
  id,
  name: `Item ${id}`,
  priceCents,
  quantity,
  discountCents,
  refundedQuantity,
});

describe('refunding lines of a discounted order', () => {
  it('gives back what was paid for them: price less their discount share, and the tax on that', () => {
    // 2 × $30 with $6 off the line (10 %): each unit cost $27; tax 8.9 % of $27 = $2.40.
    const soap = item('1', 3_000, 2, 600);
    expect(priceLineRefund([soap], [{ itemId: '1', quantity: 1 }], 0)).toEqual({
      items: [{ itemId: '1', quantity: 1, goodsCents: 2_700 }],
      goodsCents: 2_700,
      taxCents: 240,
      amountCents: 2_940,
    });
  });

  it('spreads a discount that does not divide so that all units together give back the line less its discount', () => {
    const oil = item('1', 1_000, 3, 100); // 33.3 cents off each unit
    expect(paidForUnits(oil, 1)).toBe(967);
    expect(paidForUnits(oil, 2)).toBe(1_934);
    expect(paidForUnits(oil, 3)).toBe(2_900);
  });

  it('refuses in words an unknown line, a repeated one, and more units than are left', () => {
    const lines = [item('1', 1_000, 2, 0, 1)];
    expect(priceLineRefund(lines, [{ itemId: '9', quantity: 1 }], 0)).toEqual({ problem: 'This order has no line 9.' });
    expect(
      priceLineRefund(
        lines,
        [
          { itemId: '1', quantity: 1 },
          { itemId: '1', quantity: 1 },
        ],
        0,
      ),
    ).toEqual({ problem: 'Line Item 1 is listed twice.' });
    expect(priceLineRefund(lines, [{ itemId: '1', quantity: 2 }], 0)).toEqual({
      problem: 'At most 1 of Item 1 can still be refunded.',
    });
    expect(priceLineRefund([item('1', 1_000, 2, 0, 2)], [{ itemId: '1', quantity: 1 }], 0)).toEqual({
      problem: 'Item 1 has been refunded in full.',
    });
  });

  it('refunding every unit, in any parts and order, gives back exactly the goods less the discount and their tax', () => {
    const order = fc
      .array(
        fc.record({
          price: fc.integer({ min: 1, max: 1_000_000 }),
          quantity: fc.integer({ min: 1, max: 5 }),
          percent: fc.nat(100),
        }),
        { minLength: 1, maxLength: 6 },
      )
      .map((lines) =>
        lines.map((l, i) => item(String(i + 1), l.price, l.quantity, Math.floor((l.price * l.quantity * l.percent) / 100))),
      );
    fc.assert(
      fc.property(
        order.chain((items) =>
          fc.tuple(
            fc.constant(items),
            // Each unit in its own refund, in a random order of lines.
            fc.shuffledSubarray(
              items.flatMap((i) => Array.from({ length: i.quantity }, () => i.id)),
              { minLength: items.reduce((s, i) => s + i.quantity, 0) },
            ),
          ),
        ),
        ([items, units]) => {
          const state = items.map((i) => ({ ...i }));
          let goods = 0;
          let refunded = 0;
          for (const id of units) {
            const priced = priceLineRefund(state, [{ itemId: id, quantity: 1 }], goods);
            if ('problem' in priced) return false;
            if (priced.amountCents < 0 || priced.goodsCents < 0) return false;
            goods += priced.goodsCents;
            refunded += priced.amountCents;
            const line = state.find((s) => s.id === id);
            if (line) line.refundedQuantity += 1;
          }
          const net = items.reduce((s, i) => s + i.priceCents * i.quantity - i.discountCents, 0);
          return goods === net && refunded === net + taxCents(net);
        },
      ),
    );
  });
});
