import { formatPrice } from '@/features/catalogue/catalogue';
import { MAX_CHARGE_CENTS, MIN_CHARGE_CENTS } from '@/lib/pricing';
import { newToken, tokenHash } from '@/server/auth/tokens.server';
import { type Database, jsonColumn, type Sql } from '@/server/db/database.server';
import { asService, serviceStatement } from '@/server/db/roles.server';
import { logger } from '@/server/log.server';
import { ordersRecorded, paymentsFailed } from '@/server/metrics.server';
import { queueJob } from '@/server/outbox/jobs.server';
import type { PaymentIntent, PaymentsPort } from '@/server/payments/payments.port';
import type { Address } from '@/server/shipping/shipping.port';
import { cartId } from '../cart/cart';
import { type ClaimResult, claimDiscount, discountUsed, settleDiscount } from '../discounts/discounts.server';
import { type Shortfall, STOCK_MESSAGES } from '../stock/stock';
import { type CountedLine, keyOf, restockOrder, sameItem, sellStock, wasSold } from '../stock/stock.server';
import type { CheckoutRate } from './checkout';
import { soldOutJobKey } from './sold-out.server';

const log = logger('checkout');

/** One line of a checkout: what was bought, as the catalogue described and priced it then. */
export interface CheckoutLine {
  productId: number;
  quantity: number;
  selectedColor: string | null;
  selectedSize: string | null;
  name: string;
  category: string;
  priceCents: number;
  sku: string;
  image: string;
  /** The item as the shop names it ('Clinical Scrubs (Blue, M)'), for what the shopper is told about its stock. */
  label?: string;
  /** The line's share of the order's discount (a code's and the offer's), in cents: paid for it is price × quantity − this. */
  discountCents?: number;
  /** The catalogue marked it final sale (it cannot be returned); absent in checkouts opened before the field. */
  finalSale?: boolean;
}

export const CHECKOUT_PROBLEMS = {
  rateExpired: 'Shipping rates are out of date. Please calculate shipping again.',
  notFound: 'No checkout was found for this payment.',
  notPaid: 'The payment has not gone through.',
  mismatch: 'The payment does not match the order. It has been set aside for the shop to check.',
  paymentUnderWay:
    'Your payment for this cart is already being processed, so the cart can no longer change. Please wait a moment.',
  /** A product whose price the catalogue's schema would refuse (a file edited by hand): never sold for nothing. */
  priceUnavailable: (name: string) =>
    `${name} cannot be bought online at the moment: its price is being corrected. Please take it out of your cart and try again later.`,
  overPaymentLimit: (totalCents: number) =>
    `This order comes to ${formatPrice(totalCents)}, more than one card payment can take (${formatPrice(MAX_CHARGE_CENTS)}). Please take some items out and order them separately.`,
  /** An exchange's replacement whose items went while it was held (the owner's words). */
  replacementSoldOut: (labels: readonly string[]) =>
    `${labels.join(', ')} sold out meanwhile, so no replacement was sent. Refund the return instead, or try again once it is back in stock.`,
  underPaymentMinimum: (totalCents: number) =>
    `This order comes to ${formatPrice(totalCents)}, less than the smallest card payment (${formatPrice(MIN_CHARGE_CENTS)}). Please add to your cart.`,
} as const;

export interface RecordedOrder {
  id: string;
  created: boolean;
  /**
   * Set when the payment succeeded after its hold had lapsed and the items were gone by then: the order is recorded
   * cancelled, the payment is being refunded in full, and this says so to the shopper.
   */
  soldOut?: string;
}

/** The items a late payment could not have, as stored on its order (orders.sold_out). */
type SoldOutItem = Shortfall & Pick<CountedLine, 'productId' | 'color' | 'size'>;

/** What the shopper is told of an order recorded sold out (the confirming request's answer, and every later one). */
function soldOutMessage(order: { sold_out: SoldOutItem[] | string | null; total_cents: number }): string | undefined {
  if (!order.sold_out) return undefined;
  const items = jsonColumn<SoldOutItem[]>(order.sold_out);
  return STOCK_MESSAGES.lateSoldOut(
    items.map((i) => i.label),
    order.total_cents,
  );
}

export type RecordResult = { ok: true; order: RecordedOrder } | { ok: false; status: 404 | 402 | 409; message: string };

interface CheckoutRow {
  id: string;
  user_id: string | null;
  lines: CheckoutLine[] | string;
  address: Address | string;
  rate: CheckoutRate | string;
  subtotal_cents: number;
  shipping_cents: number;
  tax_cents: number;
  total_cents: number;
  discount_code: string | null;
  discount_cents: number;
  offer_cents: number;
  shipping_discount_cents: number;
  order_id: string | null;
}

/**
 * Records the order for a payment, once (decision 004). The only writer of orders: the confirming request, the
 * webhook and the reconciliation job all call it, in any order, any number of times. It asks the processor whether
 * the payment succeeded for the checkout's total (never the caller), then inserts the order, its lines, its label
 * and e-mail jobs and empties the shopper's saved cart in one transaction. The checkout's row lock makes concurrent
 * calls wait for the first; the unique payment_intent_id makes a second order impossible even across servers.
 * The catalogue's `inStock` is not checked again here: startCheckout refused such lines before the payment was opened,
 * and once the shopper has paid, the order is recorded (a product marked out of stock by a rebuild in between is the
 * shop's to fulfil or refund, not a payment to lose). Counted items are sold here, once, just before the order is
 * written (decision 007): a payment that outlived its hold, for items gone meanwhile, is recorded cancelled and refunded.
 */
export async function recordOrder(
  db: Database,
  payments: PaymentsPort,
  paymentIntentId: string,
  options: { onQueued?: () => void; userId?: string | null } = {},
): Promise<RecordResult> {
  const [known] = await serviceStatement<{
    id: string;
    user_id: string | null;
    order_id: string | null;
    lines: CheckoutLine[] | string;
    sold_out: SoldOutItem[] | string | null;
    total_cents: number;
    discount_code: string | null;
  }>(
    db,
    `select c.id, c.user_id, c.order_id, c.lines, o.sold_out, c.total_cents, c.discount_code
       from public.checkouts c left join public.orders o on o.id = c.order_id
      where c.payment_intent_id = $1`,
    [paymentIntentId],
  );
  // A confirming shopper may only confirm their own checkout (guests: a guest's); the webhook passes no user.
  if (!known || (options.userId !== undefined && known.user_id !== options.userId)) {
    return { ok: false, status: 404, message: CHECKOUT_PROBLEMS.notFound };
  }
  if (known.order_id) return { ok: true, order: recorded(known.order_id, false, soldOutMessage(known)) };

  // The processor is asked outside the transaction: holding a row lock (and, on PGlite, the only connection) while
  // waiting on the network would stall every other request.
  const intent = await payments.retrieveIntent(paymentIntentId);
  if (intent.status !== 'succeeded') {
    // A payment the processor refused says why (a declined card); one never tried (an abandoned checkout) does not.
    if (intent.status !== 'processing' && intent.lastError) {
      paymentsFailed.inc();
      // The processor's own words for why (a declined card), never the card or the shopper.
      log.warn({ paymentIntentId: intent.id, paymentStatus: intent.status, reason: intent.lastError }, 'payment failed');
    }
    return {
      ok: false,
      status: intent.status === 'processing' ? 409 : 402,
      message: intent.lastError ?? CHECKOUT_PROBLEMS.notPaid,
    };
  }
  // A checkout's amounts never change once its payment has succeeded, so a mismatch found now stays one: it takes no
  // stock (checked again below, under the lock, before anything is written).
  if (!paidInFull(intent, known.total_cents)) return mismatched(intent, known.id, known.total_cents);

  // The hold becomes a sale, once, before the order is written: a statement of its own, so the counts of a popular item
  // are locked only while it runs, not while every order of it is written one after another. A payment that outlived
  // its hold gets the items when they are still there; when they are not, the order is recorded cancelled and the
  // payment refunded (the 'order-sold-out' job), so nobody pays for what the shop does not have. Should the order's
  // transaction then fail, the sale stays recorded for the checkout and the next call (a retry, the webhook,
  // reconciliation) takes nothing more.
  const lines = jsonColumn<CheckoutLine[]>(known.lines);
  // The code's use becomes used the same way, once, in a statement of its own (decision 009): a payment that outlived
  // its hold gets the discount while the code's limits have room; when they have none, the order is recorded cancelled
  // and refunded like an item sold out meanwhile, so no code is ever used past its limit.
  const use: ClaimResult | null = known.discount_code ? await claimDiscount(db, known.id) : null;
  const sale = await sellStock(db, known.id, lines);

  const result = await asService(db, async (tx): Promise<RecordResult> => {
    const [checkout] = await tx.query<CheckoutRow>(
      `select id, user_id, lines, address, rate, subtotal_cents, shipping_cents, tax_cents, total_cents, discount_code,
              discount_cents, offer_cents, shipping_discount_cents, order_id
       from public.checkouts where payment_intent_id = $1 for update`,
      [paymentIntentId],
    );
    if (!checkout) return { ok: false, status: 404, message: CHECKOUT_PROBLEMS.notFound };
    // Whoever held the lock before us may have recorded it: then this call answers the same order.
    if (checkout.order_id) {
      const [order] = await tx.query<{ sold_out: SoldOutItem[] | string | null; total_cents: number }>(
        `select sold_out, total_cents from public.orders where id = $1`,
        [checkout.order_id],
      );
      return { ok: true, order: recorded(checkout.order_id, false, order && soldOutMessage(order)) };
    }
    if (!paidInFull(intent, checkout.total_cents)) return mismatched(intent, checkout.id, checkout.total_cents);
    // Under the checkout's lock, which the sale takes too: what was sold is in stock_sales. A concurrent call may have
    // sold it after this one found it short (the owner put items back in between): the sale it made counts.
    const short = sale.state === 'short' && !(await wasSold(tx, checkout.id)) ? soldOutItems(sale.counted, lines) : null;
    // Likewise for the code's use: one a concurrent call made used counts.
    const codeGone = use?.state === 'refused' && !(await discountUsed(tx, checkout.id));
    const soldOut = codeGone ? [...(short ?? []), codeItem(checkout.discount_code ?? '')] : short;
    return { ok: true, order: await insertOrder(tx, checkout, paymentIntentId, soldOut) };
  });
  if (result.ok && result.order.created) {
    ordersRecorded.inc();
    log.info({ orderId: result.order.id, paymentIntentId, totalCents: intent.amountCents }, 'order recorded');
    options.onQueued?.();
  }
  return result;
}

/**
 * Records the $0 replacement order an exchange sends (decision 011) once, as recordOrder records a paid one: the
 * checkout (opened and held like any, keyed by its return: `replacementKey`) is sold once and its order written under
 * the checkout's row lock, with its label and e-mails. There is no payment to ask about; when its items are gone
 * (its hold lapsed meanwhile), nothing is recorded and the caller is told in words.
 */
export async function recordReplacement(db: Database, replacementKey: string): Promise<RecordResult> {
  const [known] = await serviceStatement<{ id: string; order_id: string | null; lines: CheckoutLine[] | string }>(
    db,
    `select id, order_id, lines from public.checkouts where payment_intent_id = $1 and content_hash like 'replacement:%'`,
    [replacementKey],
  );
  if (!known) return { ok: false, status: 404, message: CHECKOUT_PROBLEMS.notFound };
  if (known.order_id) return { ok: true, order: recorded(known.order_id, false, undefined) };
  const lines = jsonColumn<CheckoutLine[]>(known.lines);
  const sale = await sellStock(db, known.id, lines);
  return asService(db, async (tx): Promise<RecordResult> => {
    const [checkout] = await tx.query<CheckoutRow>(
      `select id, user_id, lines, address, rate, subtotal_cents, shipping_cents, tax_cents, total_cents, discount_code,
              discount_cents, offer_cents, shipping_discount_cents, order_id
       from public.checkouts where id = $1 for update`,
      [known.id],
    );
    if (!checkout) return { ok: false, status: 404, message: CHECKOUT_PROBLEMS.notFound };
    if (checkout.order_id) return { ok: true, order: recorded(checkout.order_id, false, undefined) };
    if (sale.state === 'short' && !(await wasSold(tx, checkout.id))) {
      const gone = soldOutItems(sale.counted, lines).map((i) => i.label);
      return { ok: false, status: 409, message: CHECKOUT_PROBLEMS.replacementSoldOut(gone) };
    }
    const order = await insertOrder(tx, checkout, replacementKey, null, { replacement: true });
    ordersRecorded.inc();
    log.info({ orderId: order.id, replacementKey }, 'replacement order recorded');
    return { ok: true, order };
  });
}

/** Whether the processor took the checkout's total, in dollars: the only payment an order is recorded for. */
const paidInFull = (intent: PaymentIntent, totalCents: number) => intent.amountCents === totalCents && intent.currency === 'usd';

function mismatched(intent: PaymentIntent, checkoutId: string, totalCents: number): RecordResult {
  log.error(
    { paymentIntentId: intent.id, paidCents: intent.amountCents, currency: intent.currency, checkoutId, totalCents },
    'a payment succeeded for another amount than its checkout: no order recorded',
  );
  return { ok: false, status: 409, message: CHECKOUT_PROBLEMS.mismatch };
}

const recorded = (id: string, created: boolean, soldOut: string | undefined): RecordedOrder =>
  soldOut ? { id, created, soldOut } : { id, created };

/** The counted lines a sale could not have, named as the checkout named them. */
function soldOutItems(counted: readonly CountedLine[], lines: readonly CheckoutLine[]): SoldOutItem[] {
  return counted
    .filter((c) => c.wanted > c.available)
    .map((c) => {
      const line = lines.find((l) => sameItem(keyOf(l), c));
      return {
        productId: c.productId,
        color: c.color,
        size: c.size,
        label: line?.label ?? line?.name ?? `Product ${c.productId}`,
        wanted: c.wanted,
        available: Math.max(0, c.available),
      };
    });
}

/** A code whose uses ran out while its payment was going through, as the shopper and the owner are told of it. */
const codeItem = (code: string): SoldOutItem => ({
  productId: 0,
  color: '',
  size: '',
  label: `Discount code ${code}`,
  wanted: 1,
  available: 0,
});

/** How many links to one order its paying browser can be given (each confirmation after payment asks for one). */
const MAX_BROWSER_LINKS = 5;

/**
 * A link to the order's page for the browser that paid, which proves itself with the payment's client secret: only
 * that browser was given it (the payment's id alone is not enough). Null when the secret is not the payment's, or
 * the order already has as many such links as it may.
 */
export async function orderLinkForPayer(
  db: Database,
  payments: PaymentsPort,
  input: { orderId: string; paymentIntentId: string; clientSecret: string },
): Promise<string | null> {
  if (!input.clientSecret.startsWith(`${input.paymentIntentId}_secret_`)) return null;
  const intent = await payments.retrieveIntent(input.paymentIntentId);
  if (intent.clientSecret !== input.clientSecret) return null;
  const token = newToken();
  const [minted] = await serviceStatement<{ order_id: string }>(
    db,
    `insert into public.order_access_tokens (token_hash, order_id)
     select $1, o.id from public.orders o
     where o.id = $2 and o.payment_intent_id = $3
       and (select count(*) from public.order_access_tokens t where t.order_id = o.id) < $4
     returning order_id`,
    [tokenHash(token), input.orderId, input.paymentIntentId, MAX_BROWSER_LINKS],
  );
  return minted ? `/order?token=${token}` : null;
}

async function insertOrder(
  tx: Sql,
  checkout: CheckoutRow,
  paymentIntentId: string,
  soldOut: SoldOutItem[] | null,
  { replacement = false }: { replacement?: boolean } = {},
): Promise<RecordedOrder> {
  const address = jsonColumn<Address>(checkout.address);
  const rate = jsonColumn<CheckoutRate>(checkout.rate);
  const lines = jsonColumn<CheckoutLine[]>(checkout.lines);
  // The shopper's e-mail carries the only copy of the order page's token (the shop's links to the admin's page); the
  // order keeps its hash.
  const accessToken = newToken();
  const [inserted] = await tx.query<{ id: string }>(
    `insert into public.orders (user_id, customer_email, customer_name, subtotal_cents, shipping_cents, tax_cents, total_cents,
       payment_intent_id, shipping_address, shipping_method, estimated_delivery, access_token_hash, status, sold_out,
       discount_code, discount_cents, offer_cents, shipping_discount_cents)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9::text::jsonb, $10::text::jsonb,
       case when $11::int is null then null else (now() + make_interval(days => $11::int))::date end, $12,
       case when $13::text is null then 'processing' else 'cancelled' end, $13::text::jsonb, $14, $15, $16, $17)
     on conflict (payment_intent_id) do nothing
     returning id`,
    [
      checkout.user_id,
      address.email ?? '',
      address.name,
      checkout.subtotal_cents,
      checkout.shipping_cents,
      checkout.tax_cents,
      checkout.total_cents,
      paymentIntentId,
      JSON.stringify({ ...address, address: address.street1, zipCode: address.zip }),
      JSON.stringify(rate),
      rate.estimatedDays,
      tokenHash(accessToken),
      soldOut ? JSON.stringify(soldOut) : null,
      checkout.discount_code,
      checkout.discount_cents,
      checkout.offer_cents,
      checkout.shipping_discount_cents,
    ],
  );
  if (!inserted) {
    // Another server recorded it between our lock and insert (only possible without the checkout row's lock).
    const [existing] = await tx.query<{ id: string }>(`select id from public.orders where payment_intent_id = $1`, [
      paymentIntentId,
    ]);
    if (!existing) throw new Error(`order for ${paymentIntentId} neither inserted nor found`);
    return { id: existing.id, created: false };
  }
  const items = tx.query(
    `insert into public.order_items (order_id, product_id, product_name, product_category, price_cents, quantity,
       selected_color, selected_size, product_sku, image, discount_cents, final_sale)
     select $1, l."productId", l.name, l.category, l."priceCents", l.quantity, l."selectedColor", l."selectedSize", l.sku, l.image,
       coalesce(l."discountCents", 0), coalesce(l."finalSale", false)
     from jsonb_to_recordset($2::text::jsonb) as l ("productId" integer, name text, category text, "priceCents" integer,
       quantity integer, "selectedColor" text, "selectedSize" text, sku text, image text, "discountCents" integer,
       "finalSale" boolean)`,
    [inserted.id, JSON.stringify(lines)],
  );
  const attached = tx.query(`update public.checkouts set order_id = $2, updated_at = now() where id = $1`, [
    checkout.id,
    inserted.id,
  ]);
  if (soldOut) {
    // Nothing ships and the cart stays as it is; the job refunds the payment, then tells the shopper and the shop. What
    // the sale took (when only the code's uses ran out) goes back, and so does the code's use.
    await Promise.all([
      items,
      attached,
      queueJob(tx, 'order-sold-out', { orderId: inserted.id, accessToken }, soldOutJobKey(inserted.id)),
      checkout.discount_code ? settleDiscount(tx, checkout.id, inserted.id, true) : null,
    ]);
    await restockOrder(tx, inserted.id);
    return {
      id: inserted.id,
      created: true,
      soldOut: soldOutMessage({ sold_out: soldOut, total_cents: checkout.total_cents }) ?? '',
    };
  }
  // The rest needs only the order's id: sent together, one round trip (in order; should one fail, so does the order).
  const bought = lines.map((l) => cartId(l.productId, l.selectedColor, l.selectedSize));
  await Promise.all([
    items,
    attached,
    // The bought lines leave the shopper's saved cart (what they added meanwhile on another device stays); a
    // replacement was not in it.
    checkout.user_id && !replacement
      ? tx.query(
          `delete from public.user_carts where user_id = $1 and cart_id in (select jsonb_array_elements_text($2::text::jsonb))`,
          [checkout.user_id, JSON.stringify(bought)],
        )
      : null,
    checkout.discount_code ? settleDiscount(tx, checkout.id, inserted.id, false) : null,
    queueJob(tx, 'order-label', { orderId: inserted.id }, `label:${inserted.id}`),
    queueJob(tx, 'order-email', { orderId: inserted.id, audience: 'customer', accessToken }, `mail:customer:${inserted.id}`),
    queueJob(tx, 'order-email', { orderId: inserted.id, audience: 'shop' }, `mail:shop:${inserted.id}`),
  ]);
  return { id: inserted.id, created: true };
}
