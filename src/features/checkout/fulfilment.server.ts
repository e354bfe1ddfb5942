import { createHash } from 'node:crypto';
import { type Database, jsonColumn } from '@/server/db/database.server';
import { asService, serviceStatement } from '@/server/db/roles.server';
import { logger } from '@/server/log.server';
import type { MailPort } from '@/server/mail/mail.port';
import { labelsBought, labelsFailed } from '@/server/metrics.server';
import { type Address, type ShippingPort, shopParcel, WAREHOUSE } from '@/server/shipping/shipping.port';
import { recordedDiscount } from '../orders/discount-lines';
import { shipTo } from '../orders/order-page.server';
import { orderNumber, webLink } from '../orders/orders';
import { refundCountsSql, refundedCentsSql } from '../orders/refunds.server';
import type { CheckoutRate } from './checkout';
import type { OrderEmailData } from './emails/order-emails.server';
import type { OrderChange } from './emails/refund-email.server';

const log = logger('shipping');

// What happens after an order is recorded, as outbox jobs (decision 004): each runs after the order's transaction
// committed, is retried with backoff when it fails, and never touches the order's money.

interface OrderForJobs {
  id: string;
  created_at: Date | string;
  customer_email: string;
  customer_name: string;
  subtotal_cents: number;
  discount_code: string | null;
  discount_cents: number;
  offer_cents: number;
  shipping_discount_cents: number;
  shipping_cents: number;
  tax_cents: number;
  total_cents: number;
  shipping_address: Address & { address?: string; zipCode?: string };
  shipping_method: CheckoutRate;
  tracking_number: string | null;
  tracking_url: string | null;
  label_url: string | null;
  /** YYYY-MM-DD, or null when the rate promised no day. */
  estimated_delivery: string | null;
  items: {
    product_name: string;
    quantity: number;
    price_cents: number;
    selected_color: string | null;
    selected_size: string | null;
    final_sale: boolean;
  }[];
}

async function loadOrder(db: Database, orderId: string): Promise<OrderForJobs> {
  const [order] = await serviceStatement<OrderForJobs>(
    db,
    `select o.id, o.created_at, o.customer_email, o.customer_name, o.subtotal_cents, o.shipping_cents, o.tax_cents,
              o.total_cents, o.discount_code, o.discount_cents, o.offer_cents, o.shipping_discount_cents, o.shipping_address, o.shipping_method, o.tracking_number, o.tracking_url, o.label_url,
              o.estimated_delivery::text as estimated_delivery,
              coalesce((select json_agg(json_build_object('product_name', i.product_name, 'quantity', i.quantity,
                          'price_cents', i.price_cents, 'selected_color', i.selected_color, 'selected_size', i.selected_size,
                          'final_sale', i.final_sale) order by i.id) from public.order_items i where i.order_id = o.id), '[]'::json) as items
       from public.orders o where o.id = $1`,
    [orderId],
  );
  if (!order) throw new Error(`order ${orderId} not found`);
  return {
    ...order,
    shipping_address: jsonColumn(order.shipping_address),
    shipping_method: jsonColumn(order.shipping_method),
    items: jsonColumn(order.items),
  };
}

/**
 * The 'order-label' job: buys the order's shipping label once and stores its tracking number and where it is. A label
 * the embedded adapter draws is kept in the database and served by the shop; a carrier's is linked to. An address the
 * admin changed since the checkout (admin/orders/order-ops.server.ts) is quoted afresh by the adapter (`addressKey`),
 * and a label is stored only while the order still has the address it was bought for: one changed meanwhile fails
 * this attempt, and the next buys the label for the new address.
 */
export function labelJob(deps: { db: Database; shipping: ShippingPort; publicOrigin: string }) {
  return async ({ orderId }: { orderId: string }): Promise<void> => {
    const order = await loadOrder(deps.db, orderId);
    // A retried job after a label was stored (the job ran, but marking it done failed) must not buy a second one.
    if (order.tracking_number) return;
    const checkout = await checkoutOf(deps.db, orderId);
    const to = order.shipping_address;
    const changed = checkout.quotedTo !== null && JSON.stringify(shipTo(checkout.quotedTo)) !== JSON.stringify(shipTo(to));
    let label: Awaited<ReturnType<ShippingPort['buyLabel']>>;
    try {
      label = await deps.shipping.buyLabel({
        from: WAREHOUSE,
        to,
        parcel: shopParcel(checkout.weightLb),
        rate: order.shipping_method,
        orderNumber: orderNumber(order.id),
        ...(changed ? { addressKey: addressKey(to) } : {}),
      });
    } catch (error) {
      labelsFailed.inc();
      log.warn({ orderId, shipping: deps.shipping.name, err: error }, 'label not bought');
      throw error;
    }
    labelsBought.inc();
    log.info({ orderId, shipping: deps.shipping.name, service: order.shipping_method.service }, 'label bought');
    const stored = await asService(deps.db, async (tx) => {
      let labelUrl: string;
      if (label.file.kind === 'pdf') {
        await tx.query(
          `insert into public.order_labels (order_id, pdf) values ($1, $2) on conflict (order_id) do update set pdf = excluded.pdf`,
          [orderId, label.file.bytes],
        );
        labelUrl = `${deps.publicOrigin}/api/orders/${orderId}/label`;
      } else labelUrl = label.file.url;
      const [row] = await tx.query(
        `update public.orders set tracking_number = $2, tracking_url = $3, label_url = $4
          where id = $1 and shipping_address = $5::text::jsonb returning id`,
        [orderId, label.trackingNumber, label.trackingUrl, labelUrl, JSON.stringify(to)],
      );
      // Thrown inside the transaction, so the PDF goes with it.
      if (!row) throw new AddressChanged(orderId);
      return true;
    }).catch((error: unknown) => {
      if (error instanceof AddressChanged) return false;
      throw error;
    });
    if (!stored) {
      log.warn({ orderId, trackingNumber: label.trackingNumber }, 'label not used: the address changed while it was bought');
      throw new Error('The shipping address changed while the label was bought: the next try buys it for the new address.');
    }
  };
}

class AddressChanged extends Error {
  constructor(orderId: string) {
    super(`the address of order ${orderId} changed while its label was bought`);
  }
}

/** A short key for a ship-to address, telling a label bought for it apart from one bought for another. */
const addressKey = (to: OrderForJobs['shipping_address']) =>
  createHash('sha256')
    .update(JSON.stringify(shipTo(to)))
    .digest('hex')
    .slice(0, 8);

/**
 * The parcel's weight as the checkout computed it (what the shipping was quoted and paid for), and the address its
 * rate was quoted for.
 */
async function checkoutOf(db: Database, orderId: string): Promise<{ weightLb: number; quotedTo: Address | null }> {
  const [row] = await serviceStatement<{ weight: number; address: string | Address | null }>(
    db,
    `select parcel_weight_lb::float8 as weight, address from public.checkouts where order_id = $1`,
    [orderId],
  );
  if (!row) throw new Error(`no checkout for order ${orderId}`);
  return { weightLb: row.weight, quotedTo: row.address ? jsonColumn<Address>(row.address) : null };
}

/** The order as its e-mails show it: the stored snapshot, with a tracking link only when it is a web page. */
function orderEmailData(order: OrderForJobs): OrderEmailData {
  return {
    id: order.id,
    placedAt: order.created_at instanceof Date ? order.created_at.toISOString() : String(order.created_at),
    customerName: order.customer_name,
    customerEmail: order.customer_email,
    items: order.items.map((i) => ({
      name: i.product_name,
      color: i.selected_color,
      size: i.selected_size,
      quantity: i.quantity,
      priceCents: i.price_cents,
      finalSale: i.final_sale === true,
    })),
    subtotalCents: order.subtotal_cents,
    discount: recordedDiscount(order),
    shippingCents: order.shipping_cents,
    taxCents: order.tax_cents,
    totalCents: order.total_cents,
    address: shipTo(order.shipping_address),
    shippingService: order.shipping_method.service,
    estimatedDelivery: order.estimated_delivery,
    tracking: order.tracking_number
      ? {
          number: order.tracking_number,
          url: webLink(order.tracking_url),
        }
      : null,
  };
}

/**
 * The 'order-email' job: the confirmation to the shopper, or the notice to the shop (SHOP_ADMIN_EMAIL). The shopper's
 * links to the order page the job's token opens (a job queued without one, to their order history); the shop's to the
 * admin's page of the order.
 */
export function orderEmailJob(deps: { db: Database; mail: MailPort; publicOrigin: string; shopEmail: string }) {
  return async ({
    orderId,
    audience,
    accessToken,
  }: {
    orderId: string;
    audience: 'customer' | 'shop';
    accessToken?: string | undefined;
  }) => {
    const order = await loadOrder(deps.db, orderId);
    // The shop opens the order where it can act on it: the admin's order page, not the customer's.
    const link =
      audience === 'shop'
        ? `${deps.publicOrigin}/admin/orders/${orderId}`
        : accessToken
          ? `${deps.publicOrigin}/order?token=${encodeURIComponent(accessToken)}`
          : `${deps.publicOrigin}/orders`;
    const to = audience === 'customer' ? order.customer_email : deps.shopEmail;
    // Loaded on the first e-mail, not when the server starts: the templates are only needed by this job.
    const { renderOrderEmail } = await import('./emails/order-emails.server');
    await deps.mail.send(await renderOrderEmail(orderEmailData(order), audience, to, link));
  };
}

/**
 * The 'order-shipped-email' job: tells the shopper their order is on its way, with the tracking the order has now. It
 * links to the order page with the token the confirmation carried (copied when the job was queued), else, for an
 * order queued without one, to the order history.
 */
export function shippedEmailJob(deps: { db: Database; mail: MailPort; publicOrigin: string }) {
  return async ({ orderId, accessToken }: { orderId: string; accessToken?: string | undefined }) => {
    const order = await loadOrder(deps.db, orderId);
    const link = accessToken
      ? `${deps.publicOrigin}/order?token=${encodeURIComponent(accessToken)}`
      : `${deps.publicOrigin}/orders`;
    const { renderShippedEmail } = await import('./emails/shipped-email.server');
    await deps.mail.send(await renderShippedEmail(orderEmailData(order), order.customer_email, link));
  };
}

/**
 * The 'order-change-email' job: tells the shopper of a refund (its amount, and all refunded so far) or of the order's
 * cancellation (with what was refunded for it), as the shop's refunds stand when it runs. A refund that failed at the
 * processor since it was queued is not announced.
 */
export function orderChangeEmailJob(deps: { db: Database; mail: MailPort; publicOrigin: string }) {
  return async ({
    orderId,
    change,
    refundId,
    accessToken,
  }: {
    orderId: string;
    change: 'refund' | 'cancel' | 'sold-out';
    refundId?: string | undefined;
    accessToken?: string | undefined;
  }) => {
    const order = await loadOrder(deps.db, orderId);
    const [money] = await serviceStatement<{ refunded_cents: number; amount_cents: number | null }>(
      deps.db,
      `select ${refundedCentsSql('$1::uuid')} as refunded_cents,
              (select amount_cents from public.order_refunds
                where order_id = $1 and refund_id = $2 and ${refundCountsSql('status')}) as amount_cents`,
      [orderId, refundId ?? null],
    );
    const refundedCents = money?.refunded_cents ?? 0;
    if (change === 'refund' && !money?.amount_cents) return;
    const link = accessToken
      ? `${deps.publicOrigin}/order?token=${encodeURIComponent(accessToken)}`
      : `${deps.publicOrigin}/orders`;
    const { renderRefundEmail } = await import('./emails/refund-email.server');
    const what: OrderChange =
      change === 'sold-out'
        ? { kind: 'sold-out', refundedCents, items: await soldOutLabels(deps.db, orderId) }
        : change === 'cancel'
          ? { kind: 'cancel', refundedCents }
          : { kind: 'refund', amountCents: money?.amount_cents ?? 0, refundedCents };
    await deps.mail.send(await renderRefundEmail(orderEmailData(order), what, order.customer_email, link));
  };
}

/** The answer of POST /api/create-shipment, in the spec's fields. */
export interface ShipmentAnswer {
  success: boolean;
  error: string | null;
  tracking_number: string | null;
  tracking_url: string | null;
  label_url: string | null;
}

/**
 * The order's label now, bought at most once: the stored one when it exists; else this request takes the order's
 * label job from the outbox (the same lease the worker takes, so the two never both buy) and runs it.
 */
export async function createShipment(
  deps: { db: Database; shipping: ShippingPort; publicOrigin: string },
  orderId: string,
): Promise<ShipmentAnswer> {
  const stored = async (): Promise<ShipmentAnswer | null> => {
    const [row] = await serviceStatement<{
      tracking_number: string | null;
      tracking_url: string | null;
      label_url: string | null;
    }>(deps.db, `select tracking_number, tracking_url, label_url from public.orders where id = $1`, [orderId]);
    return row?.tracking_number ? { success: true, error: null, ...row } : null;
  };
  const done = await stored();
  if (done) return done;
  const [claimed] = await serviceStatement<{ id: string }>(
    deps.db,
    `update public.outbox set locked_until = now() + interval '5 minutes', attempts = attempts + 1
       where dedupe_key = $1 and done_at is null and (locked_until is null or locked_until <= now())
       returning id::text`,
    [`label:${orderId}`],
  );
  const none = { tracking_number: null, tracking_url: null, label_url: null };
  if (!claimed)
    return (await stored()) ?? { success: false, error: 'The label is being created. Please try again in a moment.', ...none };
  try {
    await labelJob(deps)({ orderId });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Handed back to the outbox, which retries it with its backoff.
    await serviceStatement(deps.db, `update public.outbox set locked_until = null, last_error = $2 where id = $1::bigint`, [
      claimed.id,
      message,
    ]);
    return { success: false, error: message, ...none };
  }
  await serviceStatement(deps.db, `update public.outbox set done_at = now(), locked_until = null where id = $1::bigint`, [
    claimed.id,
  ]);
  return (await stored()) ?? { success: false, error: 'The label was bought but could not be read back.', ...none };
}

/** What an order recorded sold out could not have, as the shopper was told at checkout ('Clinical Scrubs (Blue, M)'). */
export async function soldOutLabels(db: Database, orderId: string): Promise<string[]> {
  const [row] = await serviceStatement<{ labels: string[] | string | null }>(
    db,
    `select (select json_agg(e ->> 'label') from jsonb_array_elements(o.sold_out) e) as labels
       from public.orders o where o.id = $1 and o.sold_out is not null`,
    [orderId],
  );
  return row?.labels ? jsonColumn<string[]>(row.labels) : [];
}
