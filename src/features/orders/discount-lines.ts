// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// An order's discounts as lines of their own (the automatic offer's, then the code's), written once for every place
// that shows an order's money: the cart drawer and the payment stage (from the server's answer), the order pages, My
// Orders, both order e-mails and the admin's order page (from the columns recorded on the order). No amount is worked
// out here: each line is what the server computed.
import { formatPrice } from '../catalogue/catalogue';

/** What an order (or a priced cart) was discounted, as recorded: orders.discount_code, offer_cents and the rest. */
export interface OrderDiscount {
  /** The code that applied (upper case), or null. */
  code: string | null;
  /** The goods' discount in all: the offer's part and the code's. */
  discountCents: number;
  /** The automatic offer's part of `discountCents`. */
  offerCents: number;
  /** A free-shipping code applied (the shipping shows as Free; its line says so instead of an amount). */
  freeShipping: boolean;
  /** The offer's percentage, when known (the drawer knows it; a recorded order keeps only the amount). */
  offerPercent?: number | undefined;
}

/** One line: its words, the amount as shown ('−$5.00', or 'Free shipping'), and the amount in cents (0 for shipping). */
export interface DiscountLine {
  key: 'offer' | 'code';
  label: string;
  amount: string;
  cents: number;
}

/** '−$5.00': an amount taken off, with a true minus sign (U+2212), as every discount line writes it. */
export const minus = (cents: number) => `\u2212${formatPrice(cents)}`;

/** The columns an order row records, as an OrderDiscount. */
export function recordedDiscount(row: {
  discount_code: string | null;
  discount_cents: number;
  offer_cents: number;
  shipping_discount_cents: number;
}): OrderDiscount {
  return {
    code: row.discount_code,
    discountCents: row.discount_cents,
    offerCents: row.offer_cents,
    // The order keeps no kind of code: one that waived the shipping, or took nothing off the goods (a free-shipping code
    // on an order that shipped free anyway; a percent or amount code always takes a cent), is a free-shipping code.
    freeShipping: row.discount_code !== null && (row.shipping_discount_cents > 0 || row.discount_cents === row.offer_cents),
  };
}

/**
 * The lines to show between the subtotal and the shipping: the offer's when it took something off, and the code's
 * when one applied ('Code SAVE10', −$5.00; or 'Code SHIPFREE', Free shipping). None when nothing was discounted.
 */
export function discountLines(d: OrderDiscount | null | undefined): DiscountLine[] {
  if (!d) return [];
  const lines: DiscountLine[] = [];
  if (d.offerCents > 0) {
    const label = d.offerPercent ? `Automatic offer (${d.offerPercent}% off)` : 'Automatic offer';
    lines.push({ key: 'offer', label, amount: minus(d.offerCents), cents: d.offerCents });
  }
  if (d.code) {
    const codeCents = Math.max(0, d.discountCents - d.offerCents);
    lines.push(
      d.freeShipping && codeCents === 0
        ? { key: 'code', label: `Code ${d.code}`, amount: 'Free shipping', cents: 0 }
        : { key: 'code', label: `Code ${d.code}`, amount: minus(codeCents), cents: codeCents },
    );
  }
  return lines;
}
