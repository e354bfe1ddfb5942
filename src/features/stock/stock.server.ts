// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import { createHash } from 'node:crypto';
import type { CatalogueIndex } from '@/features/catalogue/catalogue';
import { type Database, jsonColumn, type Sql } from '@/server/db/database.server';
import { serviceStatement } from '@/server/db/roles.server';
import { cartId, MAX_QUANTITY } from '../cart/cart';
import type { DiscountHoldRequest } from '../discounts/discounts';
import type { DiscountHoldAnswer } from '../discounts/discounts.server';
import type { Shortfall, StockAnswer } from './stock';

// Stock on the server (decision 007): holds taken as a checkout's payment is opened, sales as its order is recorded,
// releases when a payment fails, restocks when the owner cancels or refunds, and availability for the pages. The
// arithmetic that must be atomic is in the database (supabase/migrations/20261129120000_stock.sql): each call here is
// one statement, or one statement in the caller's transaction.

/**
 * How long a checkout holds what it buys. Long enough to type a card and pass 3-D Secure (the shop's idle sign-out,
 * and the wait before reconciliation looks for a lost order, are the same 15 minutes); short enough that an abandoned
 * checkout gives the last items back within a quarter of an hour. The checkout refreshes its hold before each payment
 * attempt, so only a shopper who pays more than this long after pressing Pay meets a lapsed hold.
 */
export const HOLD_MINUTES = 15;

/**
 * The most of one item one shopper may hold at once across their live checkouts: one cart line's worth. Without it a
 * client could open checkout after checkout, each holding more, and keep the last items from everyone for the whole
 * hold; with it, more checkouts hold no more. A guest is known by their client address, which several shoppers can
 * share (an office, a carrier's network), so theirs is multiplied by ADDRESS_LIMIT_FACTOR, as every per-address limit;
 * and what one client address holds, guests and accounts together, is capped the same (else one address could hold
 * everything through one account after another).
 */
export const HOLD_CAP = MAX_QUANTITY;

/** The client address a checkout comes from, and the shop's ADDRESS_LIMIT_FACTOR (how many shoppers may share one). */
export interface ClientOf {
  clientAddress: string;
  addressLimitFactor: number;
}

/** What the checkout row keeps of a client address: a hash, since it is only ever compared. */
export const clientKey = (clientAddress: string) => createHash('sha256').update(`client:${clientAddress}`).digest('hex');

/**
 * What a checkout may hold of an item: `cap`, what one shopper may hold across their live checkouts (a signed-in
 * shopper is their account: HOLD_CAP; a guest is known only by their client address: HOLD_CAP times the per-address
 * factor), and `addressCap`, what every live checkout from one client address may hold together, guests' and
 * accounts' alike (HOLD_CAP times the per-address factor; null when the address is not known).
 */
export interface HoldCaps {
  cap: number;
  addressCap: number | null;
}

export function holdCapsFor(userId: string | null, client: ClientOf | null): HoldCaps {
  const addressCap = client ? HOLD_CAP * client.addressLimitFactor : null;
  return { cap: userId ? HOLD_CAP : (addressCap ?? HOLD_CAP), addressCap };
}

/** A counted item as the database keys it: '' for no colour or no size. */
export interface StockKey {
  productId: number;
  color: string;
  size: string;
}

/** A counted line of a checkout: what it wants, and what is available to it (its own hold not counted against it). */
export interface CountedLine extends StockKey {
  wanted: number;
  available: number;
  /** When held: what the same shopper holds of the item in their other live checkouts. */
  heldElsewhere?: number;
  /** When held: what the other live checkouts from the same client address hold of the item (null: no address). */
  heldAtAddress?: number | null;
}

interface WantedLine {
  productId: number;
  selectedColor: string | null;
  selectedSize: string | null;
  quantity: number;
  /** The item as the shop named it at checkout, kept with a sale (for the activity log when it is put back). */
  label?: string | undefined;
}

export const keyOf = (line: Pick<WantedLine, 'productId' | 'selectedColor' | 'selectedSize'>): StockKey => ({
  productId: line.productId,
  color: line.selectedColor ?? '',
  size: line.selectedSize ?? '',
});

/** The lines as the stock functions read them, one per item (a repeated item adds up). */
function stockLines(lines: readonly WantedLine[]): string {
  const byKey = new Map<string, { product_id: number; color: string; size: string; quantity: number; label?: string }>();
  for (const line of lines) {
    const { productId, color, size } = keyOf(line);
    const id = cartId(productId, line.selectedColor, line.selectedSize);
    const seen = byKey.get(id);
    if (seen) seen.quantity += line.quantity;
    else
      byKey.set(id, {
        product_id: productId,
        color,
        size,
        quantity: line.quantity,
        ...(line.label ? { label: line.label } : {}),
      });
  }
  return JSON.stringify([...byKey.values()]);
}

export const sameItem = (a: StockKey, b: StockKey) => a.productId === b.productId && a.color === b.color && a.size === b.size;

/** The item as the shop names it: 'Kojic Acid Soap', 'Clinical Scrubs (Blue, M)'. */
export function itemLabel(catalogue: CatalogueIndex, { productId, color, size }: StockKey): string {
  const product = catalogue.get(productId);
  const name = product?.name ?? `Product ${productId}`;
  const variant = [color && (product?.colorNames[color] ?? color), size].filter(Boolean).join(', ');
  return variant ? `${name} (${variant})` : name;
}

/** The counted lines that want more than is available, as the shopper is told of them. */
export function shortfalls(counted: readonly CountedLine[], catalogue: CatalogueIndex): Shortfall[] {
  return counted
    .filter((c) => c.wanted > c.available)
    .map((c) => ({ label: itemLabel(catalogue, c), wanted: c.wanted, available: Math.max(0, c.available) }));
}

export interface HoldResult {
  held: boolean;
  counted: CountedLine[];
  /** The lines that would take the shopper past `cap` (with what they hold elsewhere): nothing was held for them. */
  overCap: CountedLine[];
  /** The other lines that would take the client address past `addressCap` (with what is held from it elsewhere). */
  overAddressCap: CountedLine[];
  cap: number;
  addressCap: number | null;
}

const isShort = (counted: readonly CountedLine[]) => counted.some((c) => c.wanted > c.available);

const NO_ADDRESS: HoldCaps = { cap: HOLD_CAP, addressCap: null };

/**
 * Holds the checkout's lines for HOLD_MINUTES from now, replacing what it held, when every counted line fits, none
 * takes its shopper (the checkout's account, or its guest's client address) past `caps.cap` of the item across their
 * live checkouts, and none takes the checkout's client address past `caps.addressCap` across every live checkout from
 * it, guests' and accounts'; else changes nothing. One statement: of any number of checkouts wanting the last items
 * at once, only as many as there are items are held, and of one shopper's or one address's, only up to the cap (each
 * locks the counts first, then reads the others' holds).
 *
 * With `discount` (a code's use to hold, or null: the checkout has no code now), the same statement then holds one use
 * of the code for as long, under the code's row lock, or releases the use it held (decision 009): when the use cannot
 * be held, the stock holds stay as they were and `discount` says why.
 */
export async function holdStock(
  db: Database,
  checkoutId: string,
  lines: readonly WantedLine[],
  caps: HoldCaps = NO_ADDRESS,
  discount?: DiscountHoldRequest | null,
): Promise<HoldResult & { discount: DiscountHoldAnswer | null }> {
  if (discount === undefined) {
    const [row] = await serviceStatement<{ counted: CountedLine[] | string }>(
      db,
      `select app_private.hold_stock($1, $2::text::jsonb, now() + make_interval(mins => $3), $4, $5) as counted`,
      [checkoutId, stockLines(lines), HOLD_MINUTES, caps.cap, caps.addressCap],
    );
    return { ...holdResult(jsonColumn<CountedLine[]>(row?.counted ?? '[]'), caps), discount: null };
  }
  const [row] = await serviceStatement<{ held: { counted: CountedLine[]; discount: DiscountHoldAnswer | null } | string }>(
    db,
    `select app_private.hold_checkout($1, $2::text::jsonb, now() + make_interval(mins => $3), $4, $5, $6::text::jsonb) as held`,
    [checkoutId, stockLines(lines), HOLD_MINUTES, caps.cap, caps.addressCap, discount && JSON.stringify(discount)],
  );
  const held = jsonColumn<{ counted: CountedLine[] | null; discount: DiscountHoldAnswer | null }>(row?.held ?? '{}');
  return { ...holdResult(held.counted ?? [], caps), discount: held.discount ?? null };
}

/** What a hold answered, read: held, or why not (short of stock, past the shopper's cap, or past the address's). */
function holdResult(counted: CountedLine[], { cap, addressCap }: HoldCaps): HoldResult {
  const short = isShort(counted);
  const overCap = short ? [] : counted.filter((c) => c.wanted + (c.heldElsewhere ?? 0) > cap);
  const overAddressCap = short
    ? []
    : counted.filter((c) => !overCap.includes(c) && c.heldAtAddress != null && c.wanted + c.heldAtAddress > (addressCap ?? cap));
  return {
    held: !short && overCap.length === 0 && overAddressCap.length === 0,
    counted,
    overCap,
    overAddressCap,
    cap,
    addressCap,
  };
}

/**
 * Stores a new checkout (`checkout`: its columns, as public.checkouts names them) and holds its lines as holdStock does,
 * and, with `discount`, one use of its code (as holdStock does), in one statement: one round trip and one commit, where
 * an order with counted items paid for two (the hold's commit waited for its write to the log). When the lines or the
 * code's use cannot be held the checkout is not kept: `id` is null, and `hold` or `discount` says why.
 */
export async function openAndHold(
  db: Database,
  checkout: Record<string, unknown>,
  lines: readonly WantedLine[],
  caps: HoldCaps = NO_ADDRESS,
  discount: DiscountHoldRequest | null = null,
): Promise<{ id: string | null; hold: HoldResult; discount: DiscountHoldAnswer | null }> {
  type Opened = { id: string; counted: CountedLine[] | null; discount: DiscountHoldAnswer | null };
  const [row] = await serviceStatement<{ opened: Opened | string }>(
    db,
    `select app_private.open_checkout($1::text::jsonb, $2::text::jsonb, now() + make_interval(mins => $3), $4, $5,
       $6::text::jsonb) as opened`,
    [JSON.stringify(checkout), stockLines(lines), HOLD_MINUTES, caps.cap, caps.addressCap, discount && JSON.stringify(discount)],
  );
  if (!row) throw new Error('open_checkout returned no row');
  const opened = jsonColumn<Opened>(row.opened);
  const hold = holdResult(opened.counted ?? [], caps);
  const answer = opened.discount ?? null;
  return { id: hold.held && answer?.held !== false ? opened.id : null, hold, discount: answer };
}

/** Lets go of what a checkout holds (its payment could not be opened). */
export async function releaseCheckout(db: Database, checkoutId: string): Promise<void> {
  await serviceStatement(db, `delete from public.stock_holds where checkout_id = $1`, [checkoutId]);
}

/**
 * Lets go of what the checkout of this payment held, when the payment failed or was canceled: only holds taken
 * before `failedAt` (a hold taken since, for another attempt, stays), and never once the order is recorded.
 */
export async function releaseHolds(db: Database, paymentIntentId: string, failedAt: Date | null = null): Promise<number> {
  const rows = await serviceStatement(
    db,
    `delete from public.stock_holds h using public.checkouts c
      where c.payment_intent_id = $1 and c.order_id is null and h.checkout_id = c.id
        and ($2::timestamptz is null or h.held_at < $2::timestamptz)
      returning h.product_id`,
    [paymentIntentId, failedAt?.toISOString() ?? null],
  );
  return rows.length;
}

/**
 * What selling a paid checkout's lines did: `sold` (now or by an earlier call: stock_sales holds what was taken), `short`
 * (an item is no longer there: nothing taken), or `recorded` (its order exists already: nothing done).
 */
export interface SaleResult {
  state: 'sold' | 'short' | 'recorded';
  counted: CountedLine[];
}

/**
 * Sells a paid checkout's lines, once, in one statement of its own (so the counts are locked only while it runs, not
 * while the order is then written): when every counted line fits, on hand goes down, its hold is gone and stock_sales
 * keeps what was taken. Its own hold never counts against it, lapsed or not; other checkouts' live holds do. It takes
 * the checkout's lock first, as recording the order does: the order's transaction then reads from stock_sales
 * whether the checkout was sold.
 */
export async function sellStock(db: Database, checkoutId: string, lines: readonly WantedLine[]): Promise<SaleResult> {
  const [row] = await serviceStatement<{ sale: SaleResult | string }>(
    db,
    `select app_private.sell_stock($1, $2::text::jsonb) as sale`,
    [checkoutId, stockLines(lines)],
  );
  const sale = jsonColumn<SaleResult>(row?.sale ?? '{"state":"short","counted":[]}');
  return { state: sale.state, counted: sale.counted ?? [] };
}

/** Whether the checkout was sold (by any call): in the order's transaction, under the checkout's lock. */
export async function wasSold(tx: Sql, checkoutId: string): Promise<boolean> {
  const [row] = await tx.query(`select 1 from public.stock_sales where checkout_id = $1 limit 1`, [checkoutId]);
  return Boolean(row);
}

/** An item an order took from the counts, as the shop named it, and whether it has been put back since. */
export interface TakenItem extends StockKey {
  quantity: number;
  label: string;
  returnedAt: string | null;
}

/** What the order took from the counts (nothing when none of its items were counted). */
export async function takenBy(tx: Sql, orderId: string): Promise<TakenItem[]> {
  const rows = await tx.query<{
    product_id: number;
    color: string;
    size: string;
    quantity: number;
    label: string;
    returned_at: Date | null;
  }>(
    `select s.product_id, s.color, s.size, s.quantity, s.label, s.returned_at
       from public.stock_sales s join public.checkouts c on c.id = s.checkout_id
      where c.order_id = $1
      order by s.product_id, s.color, s.size`,
    [orderId],
  );
  return rows.map((r) => ({
    productId: r.product_id,
    color: r.color,
    size: r.size,
    quantity: r.quantity,
    label: r.label,
    returnedAt: r.returned_at ? new Date(r.returned_at).toISOString() : null,
  }));
}

/** '2 × Clinical Scrubs (Blue, M), 1 × Kojic Acid Soap'. */
export const describeItems = (items: readonly { quantity: number; label: string }[]) =>
  items.map((i) => `${i.quantity} × ${i.label}`).join(', ');

/** Puts back, once, what the order took from the counts, in the caller's transaction; answers what went back. */
export async function restockOrder(tx: Sql, orderId: string): Promise<(StockKey & { quantity: number; label: string })[]> {
  const [row] = await tx.query<{ back: (StockKey & { quantity: number; label: string })[] | string }>(
    `select app_private.restock_order($1) as back`,
    [orderId],
  );
  return jsonColumn<(StockKey & { quantity: number; label: string })[]>(row?.back ?? '[]');
}

/**
 * Puts back some units of some items an order took from the counts (`items` as keyOf reads its lines), never more
 * than it took less what went back before, in the caller's transaction: what a return received in a resellable state
 * gives back. Returns what went back (nothing for an item that was never counted, or is back already).
 */
export async function restockItems(
  tx: Sql,
  orderId: string,
  items: readonly (StockKey & { quantity: number })[],
): Promise<(StockKey & { quantity: number; label: string })[]> {
  if (items.length === 0) return [];
  const [row] = await tx.query<{ back: (StockKey & { quantity: number; label: string })[] | string }>(
    `select app_private.restock_items($1, $2::text::jsonb) as back`,
    [
      orderId,
      JSON.stringify(items.map((i) => ({ product_id: i.productId, color: i.color, size: i.size, quantity: i.quantity }))),
    ],
  );
  return jsonColumn<(StockKey & { quantity: number; label: string })[]>(row?.back ?? '[]');
}

/** What can still be bought of every counted item, as anyone may ask (public.stock_available). */
export async function availableStock(tx: Sql): Promise<(StockKey & { available: number })[]> {
  const rows = await tx.query<{ product_id: number; color: string; size: string; available: number }>(
    `select product_id, color, size, available from public.stock_available()`,
  );
  return rows.map((r) => ({ productId: r.product_id, color: r.color, size: r.size, available: r.available }));
}

/** The keys a product is sold by: each colour × size, each colour, each size, or the product itself. */
export function variantKeys(productId: number, product: { colors: readonly string[]; sizes: readonly string[] }): StockKey[] {
  const colors = product.colors.length > 0 ? product.colors : [''];
  const sizes = product.sizes.length > 0 ? product.sizes : [''];
  return colors.flatMap((color) => sizes.map((size) => ({ productId, color, size })));
}

const idOf = (k: StockKey) => cartId(k.productId, k.color || null, k.size || null);

/**
 * GET /api/stock's answer: availability by cart id for the items the catalogue still sells, and the products that
 * cannot be bought at all (every way of buying them counted at 0). A count for a colour or size no longer made is left
 * out.
 */
export function stockAnswer(rows: readonly (StockKey & { available: number })[], catalogue: CatalogueIndex): StockAnswer {
  const available: Record<string, number> = {};
  for (const row of rows) {
    const product = catalogue.get(row.productId);
    if (!product || !variantKeys(row.productId, product).some((k) => idOf(k) === idOf(row))) continue;
    available[idOf(row)] = row.available;
  }
  const soldOut = [...catalogue.values()]
    .filter((p) => variantKeys(p.id, p).every((k) => available[idOf(k)] === 0))
    .map((p) => p.id);
  return { available, soldOut };
}

/** Forgets holds that lapsed a day ago (they no longer count; this only keeps the table small). */
export async function pruneHolds(db: Database): Promise<number> {
  const rows = await serviceStatement(
    db,
    `delete from public.stock_holds where expires_at < now() - interval '1 day' returning checkout_id`,
  );
  return rows.length;
}
