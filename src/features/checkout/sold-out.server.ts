import type { Database } from '@/server/db/database.server';
import { asService, serviceStatement } from '@/server/db/roles.server';
import { escapeHtml } from '@/server/mail/escape.server';
import { queueJob } from '@/server/outbox/jobs.server';
import type { PaymentsPort } from '@/server/payments/payments.port';
import { formatPrice } from '../catalogue/catalogue';
import { orderNumber } from '../orders/orders';
import { refundCounts, refundedCentsSql } from '../orders/refunds.server';
import { soldOutLabels } from './fulfilment.server';

// A payment that succeeded after its hold lapsed, for items another shopper bought meanwhile: recordOrder records the
// order cancelled, with what was missing (orders.sold_out), and queues this job, which gives the money back through
// the payments port and then tells the shopper and the shop. It runs in the outbox, so a processor that is down delays
// the refund (retried with backoff; the admin's order page shows the job) but never loses it.

/** The de-duplication key of an order's sold-out refund (once per order). */
export const soldOutJobKey = (orderId: string) => `sold-out:${orderId}`;
/** The shopper's e-mail about it (once per order). */
export const soldOutMailKey = (orderId: string) => `mail:sold-out:${orderId}`;
/** The shop's notice of it (once per order). */
export const soldOutShopMailKey = (orderId: string) => `mail:sold-out-shop:${orderId}`;

interface SoldOutOrder {
  payment_intent_id: string;
  total_cents: number;
  refunded_cents: number;
  customer_name: string;
  customer_email: string;
}

/**
 * The 'order-sold-out' job: refunds all that is left of the order's payment (the idempotency key is the order's, so a
 * retry after a lost answer gets the same refund), records the refund once, and in the same transaction queues the
 * shopper's e-mail and the shop's notice. A refund the processor reports as failed is recorded (it does not count) and
 * the job fails, to be retried and shown on the admin's order page, where the owner can refund by hand.
 */
export function soldOutRefundJob(deps: { db: Database; payments: PaymentsPort; shopEmail: string; publicOrigin: string }) {
  return async ({ orderId, accessToken }: { orderId: string; accessToken?: string | undefined }) => {
    const [order] = await serviceStatement<SoldOutOrder>(
      deps.db,
      `select o.payment_intent_id, o.total_cents, ${refundedCentsSql('o.id')} as refunded_cents, o.customer_name, o.customer_email
         from public.orders o where o.id = $1 and o.sold_out is not null`,
      [orderId],
    );
    // Not an order recorded sold out, or refunded in full already (by an earlier run, or by the owner).
    if (!order || order.refunded_cents >= order.total_cents) return;
    const refund = await deps.payments.refund({ intentId: order.payment_intent_id, idempotencyKey: soldOutJobKey(orderId) });
    const labels = await soldOutLabels(deps.db, orderId);
    await asService(deps.db, async (tx) => {
      const [row] = await tx.query(
        `insert into public.order_refunds (refund_id, order_id, amount_cents, status) values ($1, $2, $3, $4)
         on conflict (refund_id) do nothing returning refund_id`,
        [refund.id, orderId, refund.amountCents, refund.status],
      );
      if (!row || !refundCounts(refund.status)) return;
      await queueJob(
        tx,
        'order-change-email',
        { orderId, change: 'sold-out', refundId: refund.id, ...(accessToken ? { accessToken } : {}) },
        soldOutMailKey(orderId),
      );
      await queueJob(
        tx,
        'email',
        shopNotice(order, orderId, labels, refund.amountCents, deps.publicOrigin, deps.shopEmail),
        soldOutShopMailKey(orderId),
      );
    });
    if (!refundCounts(refund.status)) {
      throw new Error(`the refund ${refund.id} of sold-out order ${orderId} is ${refund.status} at the processor`);
    }
  };
}

/** The shop's notice: which paid order could not be filled, what was missing, and that its payment went back. */
function shopNotice(order: SoldOutOrder, orderId: string, labels: string[], refundedCents: number, origin: string, to: string) {
  const number = orderNumber(orderId);
  const link = `${origin}/admin/orders/${orderId}`;
  const lines = [
    `A payment for order ${number} (${order.customer_name} <${order.customer_email}>) went through after its hold on the stock had lapsed, and ${labels.join(', ')} had sold out by then.`,
    `The order was not placed: it is recorded cancelled, and ${formatPrice(refundedCents)} was refunded to the customer automatically, who has been told.`,
    `Open the order: ${link}`,
  ];
  return {
    to,
    subject: `Order ${number} refunded automatically: sold out`,
    text: lines.join('\n\n'),
    html: lines.map((l) => `<p>${escapeHtml(l)}</p>`).join(''),
  };
}
