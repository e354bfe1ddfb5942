// What happens after a return's step is recorded, as outbox jobs (decision 011): the return label once approved, and
// the shopper's e-mail of each step. Each runs after the step's transaction committed and is retried with backoff.
import type { CatalogueIndex } from '@/features/catalogue/catalogue';
import { shipTo } from '@/features/orders/order-page.server';
import { orderNumber, variantLabel } from '@/features/orders/orders';
import { parcelWeightLb } from '@/lib/pricing';
import { type Database, jsonColumn } from '@/server/db/database.server';
import { asService, serviceStatement } from '@/server/db/roles.server';
import { logger } from '@/server/log.server';
import type { MailPort } from '@/server/mail/mail.port';
import { type Address, type ShippingPort, shopParcel, WAREHOUSE } from '@/server/shipping/shipping.port';
import type { ReturnEmailData } from './return-email.server';
import { type ReturnKind, type ReturnReason, type ReturnStatus, returnNumber } from './returns';
import { queueReturnMail, RETURN_ITEMS_SQL, type ReturnItem } from './returns.server';

interface ReturnForMail {
  id: string;
  number: string;
  kind: ReturnKind;
  replacement_order_id: string | null;
  order_id: string;
  user_id: string | null;
  customer_email: string;
  customer_name: string;
  reason: ReturnReason;
  decline_reason: string | null;
  label_url: string | null;
  label_tracking_number: string | null;
  label_test: boolean | null;
  has_pdf: boolean;
  refunded_cents: number | null;
  items:
    | string
    | {
        name: string;
        color: string | null;
        size: string | null;
        quantity: number;
        condition: string | null;
        exchange_for: { color: string; size: string } | null;
      }[];
}

/** Links to the order page and the label: with the order page's token when the job has one, else the signed-in pages. */
export function returnLinks(
  origin: string,
  r: { id: string; orderId: string; userId: string | null },
  accessToken: string | undefined,
): { order: string; label: string } {
  const token = accessToken ? `?token=${encodeURIComponent(accessToken)}` : '';
  return {
    order: token ? `${origin}/order${token}` : r.userId ? `${origin}/orders/${r.orderId}` : `${origin}/orders`,
    label: `${origin}/api/returns/${r.id}/label${token}`,
  };
}

/** The 'return-email' job: tells the shopper where their return stands at `step`, as it is recorded now. */
export function returnEmailJob(deps: { db: Database; mail: MailPort; publicOrigin: string }) {
  return async ({ returnId, step, accessToken }: { returnId: string; step: ReturnStatus; accessToken?: string | undefined }) => {
    const [r] = await serviceStatement<ReturnForMail>(
      deps.db,
      `select r.id, r.number::text as number, r.kind, r.replacement_order_id, r.order_id, o.user_id, o.customer_email, o.customer_name, r.reason,
              r.decline_reason, r.label_url, r.label_tracking_number, r.label_test,
              exists (select 1 from public.return_labels l where l.return_id = r.id) as has_pdf,
              (select f.amount_cents from public.order_refunds f where f.refund_id = r.refund_id) as refunded_cents,
              ${RETURN_ITEMS_SQL} as items
         from public.order_returns r join public.orders o on o.id = r.order_id
        where r.id = $1`,
      [returnId],
    );
    // The order (and its returns with it) was deleted since: there is no one to tell.
    if (!r) return;
    const links = returnLinks(deps.publicOrigin, { id: r.id, orderId: r.order_id, userId: r.user_id }, accessToken);
    const labelHref = r.has_pdf ? links.label : r.label_url;
    const data: ReturnEmailData = {
      number: returnNumber(r.number),
      kind: r.kind,
      replacementNumber: r.replacement_order_id ? orderNumber(r.replacement_order_id) : null,
      orderId: r.order_id,
      customerName: r.customer_name,
      reason: r.reason,
      declineReason: r.decline_reason,
      items: jsonColumn(r.items).map((i) => ({
        name: i.name,
        variant: variantLabel(i.color, i.size),
        quantity: i.quantity,
        condition: i.condition,
        exchangeFor: i.exchange_for ? variantLabel(i.exchange_for.color || null, i.exchange_for.size || null) : null,
      })),
      label: labelHref ? { href: labelHref, trackingNumber: r.label_tracking_number, test: r.label_test === true } : null,
      refundedCents: r.refunded_cents,
    };
    const { renderReturnEmail } = await import('./return-email.server');
    await deps.mail.send(await renderReturnEmail(data, step, r.customer_email, links.order));
  };
}

const log = logger('shipping');

/**
 * The 'return-label' job: buys the label of an approved return once (a retried job finds it stored) and stores it
 * (the embedded adapter's PDF in the database, served by the shop; a carrier's URL), then queues the shopper's
 * approval e-mail with it, in the same transaction. A return declined before the job ran gets no label and no e-mail;
 * one declined while its label was being bought keeps the label (the owner's to void) and e-mails nothing.
 */
export function returnLabelJob(deps: {
  db: Database;
  shipping: ShippingPort;
  publicOrigin: string;
  catalogue: () => Promise<CatalogueIndex>;
}) {
  return async ({ returnId, accessToken }: { returnId: string; accessToken?: string | undefined }): Promise<void> => {
    const [r] = await serviceStatement<{
      number: string;
      status: string;
      order_id: string;
      items: string | ReturnItem[];
      label_tracking_number: string | null;
      shipping_address: string | Record<string, string | undefined>;
      shipping_method: string | { provider?: string; service?: string };
      products: string | { item_id: string; product_id: number }[];
    }>(
      deps.db,
      `select r.number::text as number, r.status, r.order_id, r.items, r.label_tracking_number, o.shipping_address,
              o.shipping_method,
              (select json_agg(json_build_object('item_id', i.id::text, 'product_id', i.product_id))
                 from public.order_items i where i.order_id = r.order_id) as products
         from public.order_returns r join public.orders o on o.id = r.order_id where r.id = $1`,
      [returnId],
    );
    // Not approved (declined, or past it: its approval e-mail was queued with its label): nothing to buy or tell.
    if (r?.status !== 'approved') return;
    if (!r.label_tracking_number) {
      const address = jsonColumn(r.shipping_address);
      const to = shipTo(address);
      const customer: Address = {
        name: to.name,
        street1: to.street1,
        ...(to.street2 ? { street2: to.street2 } : {}),
        city: to.city,
        state: to.state,
        zip: to.zip,
        country: 'US',
        ...(address.email ? { email: address.email } : {}),
      };
      const method = jsonColumn(r.shipping_method);
      const catalogue = await deps.catalogue();
      const productOf = new Map(jsonColumn(r.products).map((p) => [p.item_id, p.product_id]));
      const lines = jsonColumn(r.items).map((i) => ({ productId: productOf.get(i.itemId) ?? 0, quantity: i.quantity }));
      const returnNumber = `RMA-${r.number}`;
      const label = await deps.shipping.buyReturnLabel({
        customer,
        shop: WAREHOUSE,
        parcel: shopParcel(parcelWeightLb(lines, (id) => catalogue.get(id)?.weight)),
        returnNumber,
        returnId,
        outbound: { provider: method.provider ?? '', service: method.service ?? '' },
      });
      log.info({ returnId, shipping: deps.shipping.name }, 'return label bought');
      await asService(deps.db, async (tx) => {
        // Locked, so a decline waits or is seen: the owner may decline it while the carrier sells the label.
        const [now] = await tx.query<{ status: string }>('select status from public.order_returns where id = $1 for update', [
          returnId,
        ]);
        const url = label.file.kind === 'pdf' ? `${deps.publicOrigin}/api/returns/${returnId}/label` : label.file.url;
        if (label.file.kind === 'pdf')
          await tx.query(
            `insert into public.return_labels (return_id, pdf) values ($1, $2)
             on conflict (return_id) do update set pdf = excluded.pdf`,
            [returnId, label.file.bytes],
          );
        await tx.query(
          `update public.order_returns set label_tracking_number = $2, label_url = $3, label_test = $4
            where id = $1 and label_tracking_number is null`,
          [returnId, label.trackingNumber, url, label.test],
        );
        if (now?.status !== 'approved') {
          log.warn({ returnId, status: now?.status }, 'return label bought for a return no longer approved: not e-mailed');
          return;
        }
        await queueReturnMail(tx, { returnId, orderId: r.order_id, step: 'approved', ...(accessToken ? { accessToken } : {}) });
      });
      return;
    }
    // Stored by an earlier run whose end was not recorded: the e-mail is queued once whatever happens.
    await asService(deps.db, (tx) =>
      queueReturnMail(tx, { returnId, orderId: r.order_id, step: 'approved', ...(accessToken ? { accessToken } : {}) }),
    );
  };
}
