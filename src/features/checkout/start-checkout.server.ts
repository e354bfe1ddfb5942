// Starting a checkout: the cart priced from the catalogue and the quoted rate, its items held, and a payment opened
// (or the browser's earlier one updated) for exactly its total. Recording the order once it is paid is order.server.ts.
import { createHash } from 'node:crypto';
import { z } from 'astro/zod';
import type { CatalogueIndex } from '@/features/catalogue/catalogue';
import { MIN_PRICE_CENTS } from '@/features/catalogue/product.schema';
import { MAX_CHARGE_CENTS, MIN_CHARGE_CENTS, type OrderTotals, orderTotals } from '@/lib/pricing';
import type { Database } from '@/server/db/database.server';
import { asService, serviceStatement } from '@/server/db/roles.server';
import {
  IntentNotUpdatableError,
  type PaymentIntent,
  type PaymentShipping,
  type PaymentsPort,
} from '@/server/payments/payments.port';
import { type Address, addressWithEmailSchema, type Parcel } from '@/server/shipping/shipping.port';
import { cartProblem } from '../cart/cart.rules';
import { type DiscountOutcome, holdRefusal, type RefusalReason } from '../discounts/discounts';
import { type DiscountHoldAnswer, loadDiscounts, releaseCheckoutDiscount } from '../discounts/discounts.server';
import { STOCK_MESSAGES, shortfallMessage } from '../stock/stock';
import {
  type ClientOf,
  clientKey,
  type HoldResult,
  holdCapsFor,
  holdStock,
  itemLabel,
  keyOf,
  openAndHold,
  releaseCheckout,
  shortfalls,
} from '../stock/stock.server';
import type { CheckoutRate } from './checkout';
import {
  type DiscountSummary,
  discountCodeField,
  discountSummary,
  holdRequest,
  lookupCode,
  priceDiscounts,
  shippingWaived,
} from './checkout-discount.server';
import { CHECKOUT_PROBLEMS, type CheckoutLine } from './order.server';
import { checkoutLines, chosenRate, parcelFor, parcelProblem } from './rates.server';

/** The body of POST /api/create-payment-intent. An `amount` the browser sends is ignored: the server prices the cart. */
export const paymentIntentBody = z.object({
  lines: checkoutLines,
  address: addressWithEmailSchema,
  rateId: z.string({ error: 'Choose a shipping rate.' }).min(1, { error: 'Choose a shipping rate.' }).max(200),
  /** The client secret of the payment this browser opened before, so a changed cart updates it instead of adding one. */
  previousClientSecret: z.string().max(300).optional(),
  /** The discount code the shopper typed, if any: priced here from the stored rules, never from the browser. */
  discountCode: discountCodeField,
});
export type PaymentIntentBody = z.infer<typeof paymentIntentBody>;

export type StartResult =
  | {
      ok: true;
      clientSecret: string;
      paymentIntentId: string;
      amountCents: number;
      totals: OrderTotals;
      discount: DiscountSummary;
    }
  | {
      ok: false;
      status: 400 | 409;
      message: string;
      code?:
        | 'out_of_stock'
        | 'hold_limit'
        | 'price_unavailable'
        | 'over_payment_limit'
        | 'under_payment_minimum'
        | 'too_heavy'
        | 'discount_refused';
      /** With discount_refused: why (an unknown or malformed code is a guess, which the endpoint limits). */
      reason?: RefusalReason;
    };

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** A checkout priced from the catalogue and the quoted rate, before anything is stored, held or sent to the processor. */
interface PricedCheckout {
  lines: CheckoutLine[];
  address: Address;
  parcel: Parcel;
  rate: CheckoutRate;
  totals: OrderTotals;
  discount: DiscountOutcome;
}

type Refusal = Extract<StartResult, { ok: false }>;

/**
 * The checkout's lines priced from the catalogue, its parcel, the quoted rate re-read by its id, its discounts (the
 * code typed and the offer, from the stored rules) and the totals; or why it cannot be paid for (the cart's own rules,
 * a price the catalogue cannot sell at, too heavy to ship, an expired rate, a code that cannot be used, a total one
 * card payment cannot take).
 */
async function priceCheckout(
  db: Database,
  catalogue: CatalogueIndex,
  body: PaymentIntentBody,
): Promise<PricedCheckout | Refusal> {
  // The cart's own rules, out of stock included ('Line 1: <name> is out of stock.', the message PUT /api/cart gives).
  const problem = cartProblem(body.lines, catalogue);
  if (problem) return { ok: false, status: 400, message: problem };
  const lines: CheckoutLine[] = [];
  for (const line of body.lines) {
    const product = catalogue.get(line.productId);
    if (!product) return { ok: false, status: 400, message: `product ${line.productId} is not in the catalogue.` };
    if (!Number.isSafeInteger(product.priceCents) || product.priceCents < MIN_PRICE_CENTS)
      return { ok: false, status: 409, code: 'price_unavailable', message: CHECKOUT_PROBLEMS.priceUnavailable(product.name) };
    lines.push({
      ...line,
      name: product.name,
      category: product.category,
      priceCents: product.priceCents,
      sku: product.sku,
      image: product.image,
      label: itemLabel(catalogue, keyOf(line)),
      finalSale: product.finalSale,
    });
  }
  const address: Address = body.address;
  const parcel = parcelFor(lines, catalogue);
  const heavy = parcelProblem(parcel.weightLb);
  if (heavy) return { ok: false, status: 409, code: 'too_heavy', message: heavy };
  const typed = body.discountCode?.trim() ? body.discountCode : null;
  const { rate, offer, rules } = await asService(db, async (tx) => ({
    rate: await chosenRate(tx, body.rateId, address, parcel),
    ...(await loadDiscounts(tx, lookupCode(typed))),
  }));
  if (!rate) return { ok: false, status: 409, message: CHECKOUT_PROBLEMS.rateExpired };

  const subtotalCents = lines.reduce((sum, l) => sum + l.priceCents * l.quantity, 0);
  // The discounts from the stored rules, per line: each line keeps its share, so the order's lines (and a refund of
  // some of them) know what was paid for each. A code that cannot be used stops the checkout, in words; how often it
  // was used is asked as its use is held, under its lock.
  const discount = priceDiscounts({ lines, typed, rules, offer });
  if (discount.refusal)
    return {
      ok: false,
      status: discount.refusal.reason === 'malformed' ? 400 : 409,
      code: 'discount_refused',
      message: discount.refusal.message,
      reason: discount.refusal.reason,
    };
  discount.lines.forEach((d, i) => {
    const line = lines[i];
    if (line) line.discountCents = d.discountCents;
  });
  const totals = orderTotals(subtotalCents, rate.amountCents, discount);
  // One card payment takes from $0.50 to $999,999.99: a cart outside that is told so, before anything is stored, held
  // or sent to the processor (whose refusal, or the database's integer columns, would otherwise be a 500).
  if (totals.totalCents > MAX_CHARGE_CENTS)
    return { ok: false, status: 409, code: 'over_payment_limit', message: CHECKOUT_PROBLEMS.overPaymentLimit(totals.totalCents) };
  if (totals.totalCents < MIN_CHARGE_CENTS)
    return {
      ok: false,
      status: 409,
      code: 'under_payment_minimum',
      message: CHECKOUT_PROBLEMS.underPaymentMinimum(totals.totalCents),
    };
  return { lines, address, parcel, rate, totals, discount };
}

/**
 * Prices a checkout from the catalogue and the quoted rate, stores it, and opens a payment for exactly its total.
 * When this browser already opened one for the same shopper and it can still change, that payment is updated (or
 * reused as it is, when nothing changed) rather than a second one opened. `client` is the client address the request
 * came from (and the shop's per-address factor): what one guest may hold at once is capped by it, as a signed-in
 * shopper's is by their account (HOLD_CAP), and what every checkout from it holds, guests' and accounts' alike, too.
 */
export async function startCheckout(
  db: Database,
  payments: PaymentsPort,
  catalogue: CatalogueIndex,
  userId: string | null,
  body: PaymentIntentBody,
  client?: ClientOf,
  accountEmail: string | null = null,
): Promise<StartResult> {
  const caps = holdCapsFor(userId, client ?? null);
  const priced = await priceCheckout(db, catalogue, body);
  if ('ok' in priced) return priced;
  const { lines, address, parcel, rate, totals, discount } = priced;
  const contentHash = sha256(JSON.stringify({ lines, address, rate, totals, code: discount.code }));
  const metadata = { content_hash: contentHash.slice(0, 40) };
  // The code's use this checkout holds (null: none, and any it held is released), as its stock is held.
  const use = holdRequest(discount, totals, rate.amountCents, {
    userId,
    email: address.email ?? '',
    accountEmail,
    // As many of a limited code's uses as of an item (HOLD_CAP × ADDRESS_LIMIT_FACTOR) per client address at once.
    addressCap: caps.addressCap,
  });
  const opened = (intent: PaymentIntent): StartResult => ({
    ok: true,
    clientSecret: intent.clientSecret,
    paymentIntentId: intent.id,
    amountCents: totals.totalCents,
    totals,
    discount: discountSummary(discount),
  });

  const previous = body.previousClientSecret ? await reusable(db, payments, body.previousClientSecret, userId) : null;
  if (previous) {
    if (previous.contentHash === contentHash) {
      // The same cart again (the shopper presses Pay, or pays again after a decline): its hold starts over, or, when
      // the items went meanwhile, the payment is refused before the card is charged. A payment already under way or
      // made is left to the sale, which decides when the order is recorded.
      if (previous.intent.status === 'requires_payment_method' || previous.intent.status === 'requires_action') {
        const hold = await holdStock(db, previous.checkoutId, lines, caps, use);
        if (!hold.held) return notHeld(hold, catalogue);
        if (hold.discount?.held === false) return notUsable(hold.discount, discount);
      }
      return opened(previous.intent);
    }
    if (previous.intent.status === 'requires_payment_method') {
      // The changed cart is held first: what no longer fits is refused, and the payment stays as it was.
      const hold = await holdStock(db, previous.checkoutId, lines, caps, use);
      if (!hold.held) return notHeld(hold, catalogue);
      if (hold.discount?.held === false) return notUsable(hold.discount, discount);
      let intent: PaymentIntent;
      try {
        intent = await payments.updateIntent(previous.intent.id, {
          amountCents: totals.totalCents,
          metadata: { ...metadata, checkout_id: previous.checkoutId },
          shipping: paymentShipping(address),
        });
      } catch (error) {
        // The card was confirmed since the payment was read: it pays for the cart as it was, which stays recorded.
        if (error instanceof IntentNotUpdatableError)
          return { ok: false, status: 409, message: CHECKOUT_PROBLEMS.paymentUnderWay };
        throw error;
      }
      await serviceStatement(
        db,
        `update public.checkouts set lines = $2::text::jsonb, address = $3::text::jsonb, rate = $4::text::jsonb,
             parcel_weight_lb = $5, subtotal_cents = $6, shipping_cents = $7, tax_cents = $8, total_cents = $9,
             discount_code = $10, discount_cents = $11, offer_cents = $12, shipping_discount_cents = $13,
             content_hash = $14, updated_at = now()
           where id = $1 and order_id is null`,
        [
          previous.checkoutId,
          ...checkoutValues(lines, address, rate, parcel.weightLb, totals),
          ...discountValues(discount, totals, rate),
          contentHash,
        ],
      );
      return opened(intent);
    }
  }

  // Stored and held in one statement, before the payment is opened: a checkout that cannot have its items never
  // reaches the card form (and is not kept).
  const {
    id: checkoutId,
    hold,
    discount: useHeld,
  } = await openAndHold(
    db,
    {
      user_id: userId,
      lines,
      address,
      rate,
      parcel_weight_lb: parcel.weightLb,
      subtotal_cents: totals.subtotalCents,
      shipping_cents: totals.shippingCents,
      tax_cents: totals.taxCents,
      total_cents: totals.totalCents,
      discount_code: discount.code,
      discount_cents: totals.discountCents,
      offer_cents: discount.offerCents,
      shipping_discount_cents: shippingWaived(discount, totals, rate.amountCents),
      content_hash: contentHash,
      client_key: client ? clientKey(client.clientAddress) : null,
    },
    lines,
    caps,
    use,
  );
  if (!checkoutId) return useHeld?.held === false ? notUsable(useHeld, discount) : notHeld(hold, catalogue);
  let intent: PaymentIntent;
  try {
    intent = await payments.createIntent({
      amountCents: totals.totalCents,
      metadata: { ...metadata, checkout_id: checkoutId },
      idempotencyKey: `checkout:${checkoutId}:${contentHash}`,
      shipping: paymentShipping(address),
    });
  } catch (error) {
    // No payment, so nothing may stay held for it.
    await Promise.all([releaseCheckout(db, checkoutId), use ? releaseCheckoutDiscount(db, checkoutId) : null]);
    throw error;
  }
  await serviceStatement(db, `update public.checkouts set payment_intent_id = $2 where id = $1`, [checkoutId, intent.id]);
  return opened(intent);
}

/** The refusal of a checkout whose code's use could not be held (used up meanwhile, paused, …): nothing was opened. */
function notUsable(answer: Extract<DiscountHoldAnswer, { held: false }>, discount: DiscountOutcome): StartResult {
  const refusal = holdRefusal(answer.reason, discount.code ?? '');
  return { ok: false, status: 409, code: 'discount_refused', message: refusal.message, reason: refusal.reason };
}

/**
 * The refusal of a checkout that could not be held: its counted items are not all there (naming each and how many
 * are left), or its shopper already holds so many of one in other checkouts that this one would pass the cap, or the
 * other checkouts from its client address do.
 */
function notHeld(hold: HoldResult, catalogue: CatalogueIndex): StartResult {
  if (hold.overCap.length === 0 && hold.overAddressCap.length === 0)
    return { ok: false, status: 409, code: 'out_of_stock', message: shortfallMessage(shortfalls(hold.counted, catalogue)) };
  const addressCap = hold.addressCap ?? hold.cap;
  return {
    ok: false,
    status: 409,
    code: 'hold_limit',
    message: [
      ...hold.overCap.map((c) =>
        STOCK_MESSAGES.heldElsewhere({ label: itemLabel(catalogue, c), held: c.heldElsewhere ?? 0, cap: hold.cap }),
      ),
      ...hold.overAddressCap.map((c) =>
        STOCK_MESSAGES.heldAtAddress({ label: itemLabel(catalogue, c), held: c.heldAtAddress ?? 0, cap: addressCap }),
      ),
    ].join(' '),
  };
}

/** The ship-to address as the payment carries it. */
function paymentShipping(a: Address): PaymentShipping {
  return {
    name: a.name,
    line1: a.street1,
    ...(a.street2 ? { line2: a.street2 } : {}),
    city: a.city,
    state: a.state,
    postalCode: a.zip,
    country: 'US',
  };
}

function checkoutValues(lines: CheckoutLine[], address: Address, rate: CheckoutRate, weightLb: number, totals: OrderTotals) {
  return [
    JSON.stringify(lines),
    JSON.stringify(address),
    JSON.stringify(rate),
    weightLb,
    totals.subtotalCents,
    totals.shippingCents,
    totals.taxCents,
    totals.totalCents,
  ];
}

/** The checkout's discount columns: the code, the goods' discount, the offer's part, the shipping waived. */
function discountValues(discount: DiscountOutcome, totals: OrderTotals, rate: CheckoutRate) {
  return [discount.code, totals.discountCents, discount.offerCents, shippingWaived(discount, totals, rate.amountCents)];
}

/**
 * The checkout whose payment this browser opened (`clientSecret`, as the payment step keeps it), when it is the same
 * shopper's and has no order yet: the drawer's check of a code sets that checkout's own use of it aside.
 */
export async function ownOpenCheckout(
  db: Database,
  payments: PaymentsPort,
  clientSecret: string,
  userId: string | null,
): Promise<string | null> {
  return (await reusable(db, payments, clientSecret, userId))?.checkoutId ?? null;
}

/** The earlier payment of this browser's checkout, when it is the same shopper's and has no order yet. */
async function reusable(
  db: Database,
  payments: PaymentsPort,
  clientSecret: string,
  userId: string | null,
): Promise<{ intent: PaymentIntent; checkoutId: string; contentHash: string } | null> {
  const intentId = clientSecret.split('_secret_')[0] ?? '';
  const [checkout] = await serviceStatement<{ id: string; user_id: string | null; content_hash: string }>(
    db,
    `select id, user_id, content_hash from public.checkouts where payment_intent_id = $1 and order_id is null`,
    [intentId],
  );
  if (!checkout || checkout.user_id !== userId) return null;
  const intent = await payments.retrieveIntent(intentId);
  // Knowing the id is not enough: only the browser that was given the secret may reuse the payment.
  if (intent.clientSecret !== clientSecret) return null;
  return { intent, checkoutId: checkout.id, contentHash: checkout.content_hash };
}
