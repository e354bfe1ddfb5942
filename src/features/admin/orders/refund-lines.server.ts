// A refund of some lines of an order, priced on the server from what the order recorded (decision 009): each line's
// price, quantity and share of the discount, less what earlier line refunds gave back. The amount is then refunded as
// any other (order-actions.server.ts), and the refund keeps its lines.
import { type PricedLineRefund, priceLineRefund, type RefundLine } from '@/features/orders/refund-lines';
import { refundCountsSql } from '@/features/orders/refunds.server';
import type { Sql } from '@/server/db/database.server';

/** What refunding `wanted` of the order gives back, or why it cannot (in words); null when there is no such order. */
export async function lineRefundFor(
  tx: Sql,
  orderId: string,
  wanted: readonly RefundLine[],
): Promise<PricedLineRefund | { problem: string } | null> {
  const rows = await tx.query<{
    id: string;
    name: string;
    price_cents: number;
    quantity: number;
    discount_cents: number;
    refunded_quantity: number;
    goods_before: number;
  }>(
    `with refunded as (
       select e ->> 'itemId' as item_id, (e ->> 'quantity')::int as quantity, (e ->> 'goodsCents')::int as goods
         from public.order_refunds r cross join lateral jsonb_array_elements(r.items) e
        where r.order_id = $1 and r.items is not null and ${refundCountsSql('r.status')}
     )
     select i.id::text, i.product_name as name, i.price_cents, i.quantity, i.discount_cents,
            coalesce((select sum(f.quantity) from refunded f where f.item_id = i.id::text), 0)::int as refunded_quantity,
            (select coalesce(sum(f.goods), 0) from refunded f)::int as goods_before
       from public.order_items i where i.order_id = $1 order by i.id`,
    [orderId],
  );
  if (rows.length === 0) return null;
  return priceLineRefund(
    rows.map((r) => ({
      id: r.id,
      name: r.name,
      priceCents: r.price_cents,
      quantity: r.quantity,
      discountCents: r.discount_cents,
      refundedQuantity: r.refunded_quantity,
    })),
    wanted,
    rows[0]?.goods_before ?? 0,
  );
}
