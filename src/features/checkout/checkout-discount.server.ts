// A checkout's discounts (decision 009): the code the shopper typed and the automatic offer, priced from the catalogue
// and the stored rules at every stage, each line keeping its share; the use to hold for the code; and the answer's
// summary. Used by starting a checkout and by the drawer's check of a code, so both say the same.
import { z } from 'astro/zod';
import { type OrderTotals, orderTotals } from '@/lib/pricing';
import { cartId } from '../cart/cart';
import {
  type AppliedDiscount,
  type AutomaticOffer,
  applyDiscounts,
  type DiscountCodeRules,
  type DiscountHoldRequest,
  type DiscountOutcome,
  type DiscountUsage,
  normaliseCode,
  normaliseEmail,
  type PricedLine,
} from '../discounts/discounts';

/**
 * The code as a request carries it (`discountCode`): any text up to 64 characters, or nothing ('' and null are no
 * code). Whether it can be a code at all is the rules' to say (a 400 `discount_refused` in words, not a schema error).
 */
export const discountCodeField = z
  .string({ error: 'discountCode must be text.' })
  .max(64, { error: 'A discount code is at most 32 characters.' })
  .nullable()
  .optional();

/** What an answer says of the discounts: the outcome without its lines (the drawer's check adds them by cart id). */
export interface DiscountSummary {
  code: string | null;
  discountCents: number;
  offerCents: number;
  codeCents: number;
  freeShipping: boolean;
  applied: AppliedDiscount[];
  notice: string | null;
}

export const discountSummary = (o: DiscountOutcome): DiscountSummary => ({
  code: o.code,
  discountCents: o.discountCents,
  offerCents: o.offerCents,
  codeCents: o.codeCents,
  freeShipping: o.freeShipping,
  applied: o.applied,
  notice: o.notice,
});

/** A line priced from the catalogue, as the discount rules read it. */
export interface LineForDiscount {
  productId: number;
  selectedColor: string | null;
  selectedSize: string | null;
  quantity: number;
  category: string;
  priceCents: number;
}

export const pricedLine = (l: LineForDiscount): PricedLine => ({
  key: cartId(l.productId, l.selectedColor, l.selectedSize),
  productId: l.productId,
  category: l.category,
  unitPriceCents: l.priceCents,
  quantity: l.quantity,
});

/** The lines' discounts from the typed code (looked up as `rules`) and the offer, at `now`. */
export function priceDiscounts(input: {
  lines: readonly LineForDiscount[];
  typed: string | null;
  rules: DiscountCodeRules | null;
  offer: AutomaticOffer | null;
  usage?: DiscountUsage | null;
  now?: Date;
}): DiscountOutcome {
  return applyDiscounts({
    lines: input.lines.map(pricedLine),
    code: input.typed,
    rules: input.rules,
    usage: input.usage ?? null,
    offer: input.offer,
    now: input.now ?? new Date(),
  });
}

/** The normalised code to look up for what the shopper typed (null: none, or it cannot be a code). */
export const lookupCode = (typed: string | null | undefined) => (typed ? normaliseCode(typed) : null);

/** The shipping a free-shipping code waived: the rate, unless the order ships free anyway (from $500). */
export function shippingWaived(discount: DiscountOutcome, totals: OrderTotals, rateCents: number): number {
  if (!discount.freeShipping) return 0;
  return orderTotals(totals.subtotalCents, rateCents, { discountCents: totals.discountCents }).shippingCents;
}

/** The use of the applied code to hold for this customer, or null when no code applies. */
export function holdRequest(
  discount: DiscountOutcome,
  totals: OrderTotals,
  rateCents: number,
  customer: { userId: string | null; email: string; accountEmail: string | null; addressCap: number | null },
): DiscountHoldRequest | null {
  if (!discount.code) return null;
  return {
    code: discount.code,
    userId: customer.userId,
    email: normaliseEmail(customer.email),
    accountEmail: customer.accountEmail ? normaliseEmail(customer.accountEmail) : null,
    amountCents: discount.codeCents + shippingWaived(discount, totals, rateCents),
    addressCap: customer.addressCap,
  };
}
