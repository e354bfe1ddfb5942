// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// Discounts on the server (decision 009): the stored offer and codes read for pricing, how often a code is taken, and
// the life of a use (held as the payment opens, in the statement that holds stock: stock.server's openAndHold and
// holdStock; used as the order is recorded; released when the payment fails). The rules themselves are discounts.ts;
// what is charged is always worked out from the database and the catalogue, never from the browser.
import { type Database, jsonColumn, type Sql } from '@/server/db/database.server';
import { serviceStatement } from '@/server/db/roles.server';
import type { AutomaticOffer, DiscountCodeRules, DiscountKind, DiscountStatus, DiscountUsage } from './discounts';

interface CodeRow {
  id: string;
  code: string;
  kind: DiscountKind;
  percent: number | null;
  amount_cents: number | null;
  min_subtotal_cents: number | null;
  starts_at: string | null;
  ends_at: string | null;
  usage_limit: number | null;
  per_customer_limit: number | null;
  product_ids: number[];
  categories: string[];
  status: DiscountStatus;
}

interface OfferRow {
  threshold_cents: number;
  percent: number;
  active: boolean;
  combines: boolean;
}

/** A stored code as the rules read it, with its id. */
export type StoredCode = DiscountCodeRules & { id: string };

const date = (value: string | null) => (value === null ? null : new Date(value));

function codeOf(row: CodeRow): StoredCode {
  return {
    id: row.id,
    code: row.code,
    kind: row.kind,
    percent: row.percent,
    amountCents: row.amount_cents,
    minSubtotalCents: row.min_subtotal_cents,
    startsAt: date(row.starts_at),
    endsAt: date(row.ends_at),
    usageLimit: row.usage_limit,
    perCustomerLimit: row.per_customer_limit,
    productIds: row.product_ids,
    categories: row.categories,
    status: row.status,
  };
}

/**
 * The automatic offer when it is on, and the stored code of that name (normalised; null: none asked, or no such
 * code), in one statement: pricing a checkout reads both on every stage.
 */
export async function loadDiscounts(
  tx: Sql,
  code: string | null,
): Promise<{ offer: AutomaticOffer | null; rules: StoredCode | null }> {
  const [row] = await tx.query<{ offer: OfferRow | string | null; code: CodeRow | string | null }>(
    `select (select row_to_json(o) from public.discount_offer o where o.active) as offer,
            (select row_to_json(c) from public.discount_codes c where c.code = $1) as code`,
    [code],
  );
  const offer = row?.offer ? jsonColumn<OfferRow>(row.offer) : null;
  return {
    offer: offer
      ? { thresholdCents: offer.threshold_cents, percent: offer.percent, active: offer.active, combines: offer.combines }
      : null,
    rules: row?.code ? codeOf(jsonColumn<CodeRow>(row.code)) : null,
  };
}

/** The automatic offer as the owner set it, or null when it is off. */
export async function loadOffer(tx: Sql): Promise<AutomaticOffer | null> {
  return (await loadDiscounts(tx, null)).offer;
}

/**
 * How often a code is taken now (used, or held and not lapsed): in all, and by this customer (their account, or any
 * of their normalised e-mails), less the use `ownCheckout` holds (the shopper's own open payment). What the drawer's
 * check says; holding a use asks again under the code's lock.
 */
export async function codeUsage(
  tx: Sql,
  codeId: string,
  userId: string | null,
  emails: readonly string[],
  ownCheckout: string | null = null,
): Promise<DiscountUsage> {
  const [row] = await tx.query<{ uses: number; customer_uses: number }>(
    `select app_private.discount_uses($1, $4::uuid, null, '{}') as uses,
            app_private.discount_uses($1, $4::uuid, $2::uuid, $3::text[]) as customer_uses`,
    [codeId, userId, emails, ownCheckout],
  );
  return { uses: row?.uses ?? 0, customerUses: row?.customer_uses ?? 0 };
}

/** What the database answered about holding a code's use: held, or why not (DISCOUNT_MESSAGES through holdRefusal). */
export type DiscountHoldAnswer = { held: true } | { held: false; reason: string };

/** Lets go of the code's use of a checkout whose payment could not be opened. */
export async function releaseCheckoutDiscount(db: Database, checkoutId: string): Promise<void> {
  await serviceStatement(
    db,
    `update public.discount_redemptions set state = 'released', released_at = now() where checkout_id = $1 and state = 'held'`,
    [checkoutId],
  );
}

/**
 * Lets go of the code's use held by the checkout of this payment, when the payment failed, was declined or canceled
 * (3-D Secure abandoned included): only a use held before `failedAt` (one held since, for another attempt, stays),
 * and never once the order is recorded. As releaseHolds does for the checkout's stock.
 */
export async function releaseDiscountHolds(db: Database, paymentIntentId: string, failedAt: Date | null = null): Promise<number> {
  const rows = await serviceStatement(
    db,
    `update public.discount_redemptions r set state = 'released', released_at = now()
       from public.checkouts c
      where c.payment_intent_id = $1 and c.order_id is null and r.checkout_id = c.id and r.state = 'held'
        and ($2::timestamptz is null or r.held_at < $2::timestamptz)
      returning r.id`,
    [paymentIntentId, failedAt?.toISOString() ?? null],
  );
  return rows.length;
}

/** Marks as released the uses whose hold lapsed a day ago (they stopped counting when they lapsed). */
export async function pruneDiscountHolds(db: Database): Promise<number> {
  const rows = await serviceStatement(
    db,
    `update public.discount_redemptions set state = 'released', released_at = now()
      where state = 'held' and expires_at < now() - interval '1 day' returning id`,
  );
  return rows.length;
}

/** What making a paid checkout's use used answered (app_private.use_discount). */
export interface ClaimResult {
  state: 'none' | 'recorded' | 'used' | 'refused';
  reason?: string;
}

/**
 * Makes the paid checkout's use of its code used, once, in a statement of its own under the checkout's lock, just before
 * its order is written (as the sale of its stock is). A lapsed or released hold is used only while the code's limits
 * have room; else 'refused', and the order is recorded cancelled and refunded, as for an item sold out meanwhile.
 */
export async function claimDiscount(db: Database, checkoutId: string): Promise<ClaimResult> {
  const [row] = await serviceStatement<{ used: ClaimResult | string }>(db, `select app_private.use_discount($1) as used`, [
    checkoutId,
  ]);
  return row ? jsonColumn<ClaimResult>(row.used) : { state: 'refused', reason: 'used_up' };
}

/** Whether the checkout's use is used (by any call): in the order's transaction, under the checkout's lock. */
export async function discountUsed(tx: Sql, checkoutId: string): Promise<boolean> {
  const [row] = await tx.query(`select 1 from public.discount_redemptions where checkout_id = $1 and state = 'used'`, [
    checkoutId,
  ]);
  return Boolean(row);
}

/**
 * In the order's transaction: the use belongs to the order now recorded, or, when the order was recorded cancelled
 * (sold out), it is released, since nothing was bought with it.
 */
export async function settleDiscount(tx: Sql, checkoutId: string, orderId: string, cancelled: boolean): Promise<void> {
  if (cancelled)
    await tx.query(
      `update public.discount_redemptions set state = 'released', used_at = null, released_at = now()
        where checkout_id = $1 and state in ('held', 'used')`,
      [checkoutId],
    );
  else
    await tx.query(`update public.discount_redemptions set order_id = $2 where checkout_id = $1 and state = 'used'`, [
      checkoutId,
      orderId,
    ]);
}
