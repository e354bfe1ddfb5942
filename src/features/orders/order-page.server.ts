// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import { tokenHash } from '@/server/auth/tokens.server';
import { type Database, jsonColumn, type Sql } from '@/server/db/database.server';
import { asService, serviceStatement } from '@/server/db/roles.server';
import { type OrderDiscount, recordedDiscount } from './discount-lines';
import { type ShipTo, variantLabel, webLink } from './orders';
import { refundedCentsSql } from './refunds.server';

/** An order as its own page shows it to whoever holds the link from the confirmation e-mail. */
export interface OrderPage {
  id: string;
  createdAt: string;
  status: string | null;
  customerName: string;
  address: ShipTo;
  service: string;
  subtotalCents: number;
  /** The code and the automatic offer, as recorded: the total is subtotal − discount + shipping + tax. */
  discount: OrderDiscount;
  shippingCents: number;
  taxCents: number;
  totalCents: number;
  /** What was given back: refunds that count (pending or succeeded at the processor). */
  refundedCents: number;
  trackingNumber: string | null;
  trackingUrl: string | null;
  estimatedDelivery: string | null;
  /** `finalSale`: bought as final sale, so it cannot be returned. */
  items: { name: string; quantity: number; priceCents: number; variant: string | null; image: string; finalSale: boolean }[];
}

/** The ship-to address an order stored (rows written before checkout used `address` and `zipCode`). */
export function shipTo(stored: string | Record<string, string | undefined>): ShipTo {
  const address = jsonColumn(stored);
  return {
    name: address.name ?? '',
    street1: address.street1 ?? address.address ?? '',
    street2: address.street2 ?? '',
    city: address.city ?? '',
    state: address.state ?? '',
    zip: address.zip ?? address.zipCode ?? '',
  };
}

/** The shipping method an order stored, as its name. */
export function shippingService(stored: string | Record<string, unknown>): string {
  const method = jsonColumn(stored);
  return typeof method.service === 'string' ? method.service : 'Shipping';
}

/**
 * The order whose e-mailed link carries `token`, or null. Only the token's hash is stored, so the link is the only
 * key; a wrong or missing token finds nothing (and takes the same path as a right one).
 */
export async function orderByToken(db: Database, token: string): Promise<OrderPage | null> {
  if (token.length < 20 || token.length > 100) return null;
  return orderWhere(db, BY_TOKEN, tokenHash(token));
}

const BY_TOKEN = `o.access_token_hash = $1 or o.id = (select t.order_id from public.order_access_tokens t where t.token_hash = $1)`;

/** The id of the order whose link carries `token`, or null: what the order's page opens, as orderByToken finds it. */
export async function orderIdByToken(db: Database, token: string): Promise<string | null> {
  if (token.length < 20 || token.length > 100) return null;
  const [row] = await serviceStatement<{ id: string }>(db, `select o.id from public.orders o where ${BY_TOKEN}`, [
    tokenHash(token),
  ]);
  return row?.id ?? null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A signed-in shopper's own order, or null (someone else's, or none). Whether it is theirs is asked as the shopper
 * (`run`: their role and claims), so row-level security decides; the page is then read as one whole.
 */
export async function orderOfShopper(
  db: Database,
  run: <T>(fn: (tx: Sql) => Promise<T>) => Promise<T>,
  orderId: string,
): Promise<OrderPage | null> {
  if (!UUID.test(orderId)) return null;
  const [own] = await run((tx) => tx.query<{ id: string }>('select id from public.orders where id = $1', [orderId]));
  return own ? orderWhere(db, 'o.id = $1::uuid', own.id) : null;
}

/** The order found by `where` (on `orders o`, with `$1`), as its page shows it. */
async function orderWhere(db: Database, where: string, param: string): Promise<OrderPage | null> {
  const [row] = await asService(db, (tx) =>
    tx.query<{
      id: string;
      created_at: Date | string;
      status: string | null;
      customer_name: string;
      shipping_address: string | Record<string, string>;
      shipping_method: string | Record<string, unknown>;
      subtotal_cents: number;
      discount_code: string | null;
      discount_cents: number;
      offer_cents: number;
      shipping_discount_cents: number;
      shipping_cents: number;
      tax_cents: number;
      total_cents: number;
      refunded_cents: number;
      tracking_number: string | null;
      tracking_url: string | null;
      estimated_delivery: Date | string | null;
      items:
        | string
        | {
            product_name: string;
            quantity: number;
            price_cents: number;
            selected_color: string | null;
            selected_size: string | null;
            image: string;
            final_sale: boolean;
          }[];
    }>(
      `select o.id, o.created_at, o.status, o.customer_name, o.shipping_address, o.shipping_method, o.subtotal_cents,
              o.discount_code, o.discount_cents, o.offer_cents, o.shipping_discount_cents,
              o.shipping_cents, o.tax_cents, o.total_cents, o.tracking_number, o.tracking_url, o.estimated_delivery,
              ${refundedCentsSql('o.id')} as refunded_cents,
              coalesce((select json_agg(json_build_object('product_name', i.product_name, 'quantity', i.quantity,
                          'price_cents', i.price_cents, 'selected_color', i.selected_color, 'selected_size', i.selected_size,
                          'image', i.image, 'final_sale', i.final_sale) order by i.id) from public.order_items i where i.order_id = o.id), '[]'::json) as items
       from public.orders o where ${where}`,
      [param],
    ),
  );
  if (!row) return null;
  const iso = (v: Date | string | null) => (v === null ? null : v instanceof Date ? v.toISOString() : String(v));
  return {
    id: row.id,
    createdAt: iso(row.created_at) ?? '',
    status: row.status,
    customerName: row.customer_name,
    address: shipTo(row.shipping_address),
    service: shippingService(row.shipping_method),
    subtotalCents: row.subtotal_cents,
    discount: recordedDiscount(row),
    shippingCents: row.shipping_cents,
    taxCents: row.tax_cents,
    totalCents: row.total_cents,
    refundedCents: row.refunded_cents,
    trackingNumber: row.tracking_number,
    trackingUrl: webLink(row.tracking_url),
    estimatedDelivery: iso(row.estimated_delivery)?.slice(0, 10) ?? null,
    items: jsonColumn(row.items).map((i) => ({
      name: i.product_name,
      quantity: i.quantity,
      priceCents: i.price_cents,
      variant: variantLabel(i.selected_color, i.selected_size),
      image: i.image,
      finalSale: i.final_sale === true,
    })),
  };
}
