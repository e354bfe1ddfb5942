import { type Database, jsonColumn } from '@/server/db/database.server';
import { asService } from '@/server/db/roles.server';
import { escapeHtml } from '@/server/mail/escape.server';
import type { MailMessage, MailPort } from '@/server/mail/mail.port';
import { type Address, type ShippingPort, shopParcel, WAREHOUSE } from '@/server/shipping/shipping.port';
import { formatPrice } from '../catalog/catalog';
import type { CheckoutRate } from './checkout';
import { orderNumber } from './checkout';

// What happens after an order is recorded, as outbox jobs (decision 004): each runs after the order's transaction
// committed, is retried with backoff when it fails, and never touches the order's money.

interface OrderForJobs {
  id: string;
  customer_email: string;
  customer_name: string;
  subtotal_cents: number;
  shipping_cents: number;
  tax_cents: number;
  total_cents: number;
  shipping_address: Address & { address?: string; zipCode?: string };
  shipping_method: CheckoutRate;
  tracking_number: string | null;
  tracking_url: string | null;
  label_url: string | null;
  items: {
    product_name: string;
    quantity: number;
    price_cents: number;
    selected_color: string | null;
    selected_size: string | null;
  }[];
}

async function loadOrder(db: Database, orderId: string): Promise<OrderForJobs> {
  const [order] = await asService(db, (tx) =>
    tx.query<OrderForJobs>(
      `select o.id, o.customer_email, o.customer_name, o.subtotal_cents, o.shipping_cents, o.tax_cents, o.total_cents,
              o.shipping_address, o.shipping_method, o.tracking_number, o.tracking_url, o.label_url,
              coalesce((select json_agg(json_build_object('product_name', i.product_name, 'quantity', i.quantity,
                          'price_cents', i.price_cents, 'selected_color', i.selected_color, 'selected_size', i.selected_size)
                        order by i.id) from public.order_items i where i.order_id = o.id), '[]'::json) as items
       from public.orders o where o.id = $1`,
      [orderId],
    ),
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
 * the embedded adapter draws is kept in the database and served by the shop; a carrier's is linked to.
 */
export function labelJob(deps: { db: Database; shipping: ShippingPort; publicOrigin: string }) {
  return async ({ orderId }: { orderId: string }): Promise<void> => {
    const order = await loadOrder(deps.db, orderId);
    // A retried job after a label was stored (the job ran, but marking it done failed) must not buy a second one.
    if (order.tracking_number) return;
    const label = await deps.shipping.buyLabel({
      from: WAREHOUSE,
      to: order.shipping_address,
      parcel: shopParcel(await orderWeight(deps.db, orderId)),
      rate: order.shipping_method,
      orderNumber: orderNumber(order.id),
    });
    await asService(deps.db, async (tx) => {
      let labelUrl: string;
      if (label.file.kind === 'pdf') {
        await tx.query(
          `insert into public.order_labels (order_id, pdf) values ($1, $2) on conflict (order_id) do update set pdf = excluded.pdf`,
          [orderId, label.file.bytes],
        );
        labelUrl = `${deps.publicOrigin}/api/orders/${orderId}/label`;
      } else labelUrl = label.file.url;
      await tx.query(`update public.orders set tracking_number = $2, tracking_url = $3, label_url = $4 where id = $1`, [
        orderId,
        label.trackingNumber,
        label.trackingUrl,
        labelUrl,
      ]);
    });
  };
}

/** The parcel's weight as the checkout computed it (what the shipping was quoted and paid for). */
async function orderWeight(db: Database, orderId: string): Promise<number> {
  const [row] = await asService(db, (tx) =>
    tx.query<{ weight: number }>(`select parcel_weight_lb::float8 as weight from public.checkouts where order_id = $1`, [
      orderId,
    ]),
  );
  if (!row) throw new Error(`no checkout for order ${orderId}`);
  return row.weight;
}

/** The order e-mail for the shopper or for the shop: items, totals, address, and tracking when known. */
export function orderEmail(order: OrderForJobs, audience: 'customer' | 'shop', to: string, link: string): MailMessage {
  const number = orderNumber(order.id);
  const a = order.shipping_address;
  const variant = (i: OrderForJobs['items'][number]) => [i.selected_color, i.selected_size].filter(Boolean).join(', ');
  const itemLines = order.items.map(
    (i) => `${i.quantity} × ${i.product_name}${variant(i) ? ` (${variant(i)})` : ''}: ${formatPrice(i.price_cents * i.quantity)}`,
  );
  const totals = [
    `Subtotal: ${formatPrice(order.subtotal_cents)}`,
    `Shipping (${order.shipping_method.service}): ${order.shipping_cents === 0 ? 'Free' : formatPrice(order.shipping_cents)}`,
    `Tax: ${formatPrice(order.tax_cents)}`,
    `Total: ${formatPrice(order.total_cents)}`,
  ];
  const address = [a.name, a.street1 ?? a.address ?? '', `${a.city}, ${a.state} ${a.zip ?? a.zipCode ?? ''}`, 'United States'];
  const tracking = order.tracking_number ? [`Tracking number: ${order.tracking_number}`] : [];
  const greeting =
    audience === 'customer'
      ? [`Thank you for your order, ${order.customer_name}.`, `Your order ${number} is being prepared.`]
      : [`New order ${number} from ${order.customer_name} <${order.customer_email}>.`];
  const subject =
    audience === 'customer' ? `Your Aurelia order ${number}` : `New order ${number}: ${formatPrice(order.total_cents)}`;
  const sections: [string, string[]][] = [
    ['Items', itemLines],
    ['Totals', totals],
    ['Ships to', address],
    ...(tracking.length ? ([['Tracking', tracking]] as [string, string[]][]) : []),
  ];
  const text = [
    ...greeting,
    ...sections.map(([title, lines]) => `${title}\n${lines.join('\n')}`),
    `${audience === 'customer' ? 'See your order' : 'Open the order'}: ${link}`,
    'Aurelia',
  ].join('\n\n');
  const html = `<!doctype html><html><body style="font-family:Georgia,serif;color:#2b2420;max-width:560px">
${greeting.map((l) => `<p>${escapeHtml(l)}</p>`).join('\n')}
${sections.map(([title, lines]) => `<h2 style="font-size:16px;margin:20px 0 6px">${escapeHtml(title)}</h2>\n${lines.map((l) => `<div>${escapeHtml(l)}</div>`).join('\n')}`).join('\n')}
<p style="margin-top:24px"><a href="${escapeHtml(link)}" style="display:inline-block;background:#2b2420;color:#fff;padding:12px 20px;border-radius:999px;text-decoration:none">${audience === 'customer' ? 'See your order' : 'Open the order'}</a></p>
<p>Aurelia</p></body></html>`;
  return { to, subject, text, html };
}

/** The 'order-email' job: the confirmation to the shopper, or the notice to the shop (SHOP_ADMIN_EMAIL). */
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
    const link =
      audience === 'customer' && accessToken
        ? `${deps.publicOrigin}/order?token=${encodeURIComponent(accessToken)}`
        : `${deps.publicOrigin}/orders`;
    const to = audience === 'customer' ? order.customer_email : deps.shopEmail;
    await deps.mail.send(orderEmail(order, audience, to, link));
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
    const [row] = await asService(deps.db, (tx) =>
      tx.query<{ tracking_number: string | null; tracking_url: string | null; label_url: string | null }>(
        `select tracking_number, tracking_url, label_url from public.orders where id = $1`,
        [orderId],
      ),
    );
    return row?.tracking_number ? { success: true, error: null, ...row } : null;
  };
  const done = await stored();
  if (done) return done;
  const [claimed] = await asService(deps.db, (tx) =>
    tx.query<{ id: string }>(
      `update public.outbox set locked_until = now() + interval '5 minutes', attempts = attempts + 1
       where dedupe_key = $1 and done_at is null and (locked_until is null or locked_until <= now())
       returning id::text`,
      [`label:${orderId}`],
    ),
  );
  const none = { tracking_number: null, tracking_url: null, label_url: null };
  if (!claimed)
    return (await stored()) ?? { success: false, error: 'The label is being created. Please try again in a moment.', ...none };
  try {
    await labelJob(deps)({ orderId });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Handed back to the outbox, which retries it with its backoff.
    await asService(deps.db, (tx) =>
      tx.query(`update public.outbox set locked_until = null, last_error = $2 where id = $1::bigint`, [claimed.id, message]),
    );
    return { success: false, error: message, ...none };
  }
  await asService(deps.db, (tx) =>
    tx.query(`update public.outbox set done_at = now(), locked_until = null where id = $1::bigint`, [claimed.id]),
  );
  return (await stored()) ?? { success: false, error: 'The label was bought but could not be read back.', ...none };
}
