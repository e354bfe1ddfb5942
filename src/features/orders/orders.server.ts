import type { CatalogueIndex } from '@/features/catalogue/catalogue';
import type { Database, Sql } from '@/server/db/database.server';
import { serviceStatement } from '@/server/db/roles.server';
import { lineProblem } from '../cart/cart.rules';
import { recordedDiscount } from './discount-lines';
import { type Order, type OrderItem, webLink } from './orders';
import { refundCountsSql } from './refunds.server';

interface OrderRow {
  id: string;
  created_at: Date | string;
  status: string | null;
  total_cents: number;
  discount_code: string | null;
  discount_cents: number;
  offer_cents: number;
  shipping_discount_cents: number;
  tracking_number: string | null;
  tracking_url: string | null;
  estimated_delivery: Date | string | null;
  items: {
    product_id: number;
    product_name: string;
    image: string;
    price_cents: number;
    quantity: number;
    selected_color: string | null;
    selected_size: string | null;
  }[];
}

/** A stored line as the history shows it: today's picture while the product is sold, and whether it can be reordered. */
function toItem(row: OrderRow['items'][number], catalogue: CatalogueIndex): OrderItem {
  const product = catalogue.get(row.product_id);
  const line = { productId: row.product_id, quantity: 1, selectedColor: row.selected_color, selectedSize: row.selected_size };
  return {
    productId: row.product_id,
    name: row.product_name,
    image: product?.image ?? row.image,
    priceCents: row.price_cents,
    quantity: row.quantity,
    selectedColor: row.selected_color,
    selectedSize: row.selected_size,
    available: Boolean(product?.inStock) && lineProblem(line, product) === null,
  };
}

const isoDate = (value: Date | string | null) =>
  value === null ? null : (value instanceof Date ? value.toISOString() : String(value)).slice(0, 10);

/** The signed-in shopper's orders with their lines, newest first (row-level security shows nobody else's). */
export async function listOrders(tx: Sql, catalogue: CatalogueIndex): Promise<Order[]> {
  const rows = await tx.query<OrderRow>(
    `select o.id, o.created_at, o.status, o.total_cents, o.discount_code, o.discount_cents, o.offer_cents,
            o.shipping_discount_cents, o.tracking_number, o.tracking_url, o.estimated_delivery,
            coalesce((select json_agg(json_build_object(
                        'product_id', i.product_id, 'product_name', i.product_name, 'image', i.image,
                        'price_cents', i.price_cents, 'quantity', i.quantity,
                        'selected_color', i.selected_color, 'selected_size', i.selected_size) order by i.id)
                      from public.order_items i where i.order_id = o.id), '[]'::json) as items
     from public.orders o
     where o.user_id = (select auth.uid())
     order by o.created_at desc, o.seq desc`,
  );
  return rows.map((row) => ({
    id: row.id,
    createdAt: new Date(row.created_at).toISOString(),
    status: row.status,
    totalCents: row.total_cents,
    discount: recordedDiscount(row),
    trackingNumber: row.tracking_number,
    trackingUrl: webLink(row.tracking_url),
    estimatedDelivery: isoDate(row.estimated_delivery),
    items: (typeof row.items === 'string' ? (JSON.parse(row.items) as OrderRow['items']) : row.items).map((i) =>
      toItem(i, catalogue),
    ),
  }));
}

/**
 * The orders with what was refunded of each. Refunds are the shop's records (server-only under RLS), so they are read
 * as service_role, but only for `orders`, which the shopper's own query returned: no one else's order is asked about.
 */
export async function withRefunds(db: Database, orders: Order[]): Promise<Order[]> {
  if (orders.length === 0) return orders;
  const rows = await serviceStatement<{ order_id: string; refunded_cents: number }>(
    db,
    `select order_id::text, sum(amount_cents)::int as refunded_cents from public.order_refunds
     where order_id = any($1::uuid[]) and ${refundCountsSql('status')} group by order_id`,
    [orders.map((o) => o.id)],
  );
  const refunded = new Map(rows.map((r) => [r.order_id, r.refunded_cents]));
  return orders.map((o) => ({ ...o, refundedCents: refunded.get(o.id) ?? 0 }));
}
