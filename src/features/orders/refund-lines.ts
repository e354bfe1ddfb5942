// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// What refunding some lines of an order gives back: what was paid for them, that is their price less their share of
// the order's discount, and the tax on that (decision 009). Plain TypeScript: the admin's refund path prices it on the
// server; a page may show the same figure before the owner confirms.
import { taxCents } from '@/lib/pricing';

/** An order line as a refund reads it: its price, quantity and discount share, and how many units were refunded. */
export interface RefundableItem {
  id: string;
  name: string;
  priceCents: number;
  quantity: number;
  /** The line's share of the order's discount (order_items.discount_cents). */
  discountCents: number;
  /** Units of the line refunded before, by line (never more than `quantity`). */
  refundedQuantity: number;
}

/** Units of a line to refund. */
export interface RefundLine {
  itemId: string;
  quantity: number;
}

/** A line refund, priced: per line the units and the goods given back, the tax on them, and the amount to refund. */
export interface PricedLineRefund {
  items: { itemId: string; quantity: number; goodsCents: number }[];
  goodsCents: number;
  taxCents: number;
  amountCents: number;
}

/**
 * What the first `units` units of a line cost the shopper: their price less the discount on them, the line's discount
 * spread over its units with the remainder on the last (floor), so refunding every unit, in any number of refunds,
 * gives back exactly the line's price less its discount. Never negative, never more than the units' price.
 */
export function paidForUnits(item: Pick<RefundableItem, 'priceCents' | 'quantity' | 'discountCents'>, units: number): number {
  const n = Math.max(0, Math.min(units, item.quantity));
  return n * item.priceCents - Math.floor((item.discountCents * n) / item.quantity);
}

/**
 * Prices a refund of `wanted` units, line by line, after `goodsRefundedBefore` cents of goods were given back by
 * earlier line refunds. The tax is the difference the refund makes to the tax on all goods refunded, so that refunding
 * every line, at once or in parts, gives back exactly the order's tax (8.9 % of its discounted subtotal), never a cent
 * more through rounding. Refused, in words, when a line is unknown, repeated or asked for more units than are left.
 */
export function priceLineRefund(
  items: readonly RefundableItem[],
  wanted: readonly RefundLine[],
  goodsRefundedBefore: number,
): PricedLineRefund | { problem: string } {
  const seen = new Set<string>();
  const priced: PricedLineRefund['items'] = [];
  for (const want of wanted) {
    const item = items.find((i) => i.id === want.itemId);
    if (!item) return { problem: `This order has no line ${want.itemId}.` };
    if (seen.has(item.id)) return { problem: `Line ${item.name} is listed twice.` };
    seen.add(item.id);
    const left = item.quantity - item.refundedQuantity;
    if (!Number.isInteger(want.quantity) || want.quantity < 1 || want.quantity > left)
      return {
        problem: left > 0 ? `At most ${left} of ${item.name} can still be refunded.` : `${item.name} has been refunded in full.`,
      };
    const goods = paidForUnits(item, item.refundedQuantity + want.quantity) - paidForUnits(item, item.refundedQuantity);
    priced.push({ itemId: item.id, quantity: want.quantity, goodsCents: goods });
  }
  const goodsCents = priced.reduce((s, p) => s + p.goodsCents, 0);
  const tax = taxCents(goodsRefundedBefore + goodsCents) - taxCents(goodsRefundedBefore);
  return { items: priced, goodsCents, taxCents: tax, amountCents: goodsCents + tax };
}
