// The cart drawer's check of a discount code (POST /api/discount): what the code and the automatic offer would take
// off this cart now, line by line, or why the code cannot be used, in words. Priced from the catalogue and the stored
// rules as starting a checkout does; nothing is held (the use is held as the payment opens).
import { z } from 'astro/zod';
import type { CatalogueIndex } from '@/features/catalogue/catalogue';
import { isEmail } from '@/lib/email';
import type { Database } from '@/server/db/database.server';
import { asService } from '@/server/db/roles.server';
import { cartProblem } from '../cart/cart.rules';
import { normaliseEmail, type RefusalReason, shopperRule } from '../discounts/discounts';
import { codeUsage, loadDiscounts } from '../discounts/discounts.server';
import {
  type DiscountSummary,
  discountSummary,
  type LineForDiscount,
  lookupCode,
  priceDiscounts,
} from './checkout-discount.server';
import { checkoutLines } from './rates.server';

/** The body of POST /api/discount: the code typed, the cart's lines, and the e-mail the shopper gave, if any. */
export const discountCheckBody = z.object({
  discountCode: z.string({ error: 'Send the code as {"discountCode": "…"}.' }).max(64, {
    error: 'A discount code is at most 32 characters.',
  }),
  lines: checkoutLines,
  email: z.string().max(254).optional(),
  /** The client secret of the payment this browser opened (when the shopper came back from the payment step). */
  previousClientSecret: z.string().max(300).optional(),
});
export type DiscountCheckBody = z.infer<typeof discountCheckBody>;

export interface DiscountCheckAnswer extends DiscountSummary {
  /** Each line's discount by its cart id ('3-powder-blue-M'), in the request's order. */
  lines: { cartId: string; discountCents: number }[];
  /** How the offer meets a code, in one sentence, as the offer is set now. */
  rule: string;
}

export type DiscountCheck =
  | { ok: true; answer: DiscountCheckAnswer }
  | { ok: false; status: 400 | 409; code: 'discount_refused' | 'invalid_request'; message: string; reason?: RefusalReason };

/**
 * What the code would do to these lines for this customer (their account, the account's e-mail and the one they typed,
 * counted alike for a per-customer limit): its effect, or the refusal. `reason` tells the caller whether the code
 * exists (unknown and malformed codes are guesses, and are limited harder). `ownCheckout` is the checkout whose payment
 * this browser opened: the use it holds is the shopper's own cart's, not one against them.
 */
export async function checkDiscount(
  db: Database,
  catalogue: CatalogueIndex,
  body: DiscountCheckBody,
  customer: { userId: string | null; accountEmail: string | null; ownCheckout?: string | null },
): Promise<DiscountCheck> {
  const problem = cartProblem(body.lines, catalogue);
  if (problem) return { ok: false, status: 400, code: 'invalid_request', message: problem };
  const lines: LineForDiscount[] = [];
  for (const line of body.lines) {
    const product = catalogue.get(line.productId);
    if (!product)
      return { ok: false, status: 400, code: 'invalid_request', message: `product ${line.productId} is not in the catalogue.` };
    lines.push({ ...line, category: product.category, priceCents: product.priceCents });
  }
  const typed = body.discountCode;
  const emails = [body.email?.trim() ?? '', customer.accountEmail ?? ''].filter((e) => isEmail(e)).map(normaliseEmail);
  const { offer, rules, usage } = await asService(db, async (tx) => {
    const stored = await loadDiscounts(tx, lookupCode(typed));
    // A guest who gave no e-mail yet is counted in all only; their limit is asked again when the payment opens.
    const usage = stored.rules
      ? await codeUsage(tx, stored.rules.id, customer.userId, emails, customer.ownCheckout ?? null)
      : null;
    return { ...stored, usage };
  });
  const counted = usage && !customer.userId && emails.length === 0 ? { ...usage, customerUses: 0 } : usage;
  const outcome = priceDiscounts({ lines, typed, rules, offer, usage: counted });
  if (outcome.refusal)
    return {
      ok: false,
      status: outcome.refusal.reason === 'malformed' ? 400 : 409,
      code: 'discount_refused',
      message: outcome.refusal.message,
      reason: outcome.refusal.reason,
    };
  return {
    ok: true,
    answer: {
      ...discountSummary(outcome),
      lines: outcome.lines.map((l) => ({ cartId: l.key, discountCents: l.discountCents })),
      rule: shopperRule(offer),
    },
  };
}
