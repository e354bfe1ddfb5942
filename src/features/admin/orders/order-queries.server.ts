import {
  type JobState,
  jobKeys,
  ORDER_JOBS,
  type OrderJob,
  type OrderListQuery,
  orderSearch,
  storedSpellings,
} from '@/features/admin/orders/order-admin';
import { type OrderDiscount, recordedDiscount } from '@/features/orders/discount-lines';
import { shippingService, shipTo } from '@/features/orders/order-page.server';
import { orderNumber, type ShipTo, type StatusKey, statusOf, variantLabel, webLink } from '@/features/orders/orders';
import { refundCounts, refundedCentsSql } from '@/features/orders/refunds.server';
import { jsonColumn, type Sql } from '@/server/db/database.server';
import { MAX_ATTEMPTS } from '@/server/outbox/outbox.server';
import type { PaymentIntentStatus, PaymentsPort } from '@/server/payments/payments.port';
import { type Cursor, isoText, type Page, seqOf, toPage } from '../paging.server';

// What the admin reads of orders: the list, an order's page with its jobs and label, and what the processor says of its
// payment. Every query runs as service_role through the admin's `run`. What an admin does to an order is
// order-actions.server.ts.

const iso = (value: Date | string | null) =>
  value === null ? null : value instanceof Date ? value.toISOString() : String(value);

// The list ---------------------------------------------------------------------------------------------------------

/** An order as the admin's list shows it. */
export interface AdminOrderRow {
  id: string;
  number: string;
  /** ISO time, to the microsecond (the page cursor). */
  createdAt: string;
  customerName: string;
  customerEmail: string;
  guest: boolean;
  totalCents: number;
  refundedCents: number;
  status: StatusKey;
  /** How many pieces. */
  items: number;
}

/**
 * One page of orders, newest first, matching the search and filters: `limit` rows, and the cursor of the next page when
 * there is one. Keyset paging reads only the rows of the page, however many orders the shop has.
 */
export async function listOrdersForAdmin(
  tx: Sql,
  query: OrderListQuery,
  {
    limit,
    after,
    timeZone = 'UTC',
  }: {
    limit: number;
    after?: Cursor | undefined;
    /** The zone the `from` and `to` days are in (the shop's, SHOP_TIME_ZONE). */
    timeZone?: string;
  },
): Promise<Page<AdminOrderRow>> {
  const search = orderSearch(query.q);
  const rows = await tx.query<{
    id: string;
    at: string;
    customer_name: string;
    customer_email: string;
    guest: boolean;
    total_cents: number;
    refunded_cents: number;
    status: string;
    items: number;
  }>(
    `select o.id, ${isoText('o.created_at')} as at, o.customer_name, o.customer_email, o.user_id is null as guest,
            o.total_cents, o.status,
            ${refundedCentsSql('o.id')} as refunded_cents,
            (select coalesce(sum(i.quantity), 0)::int from public.order_items i where i.order_id = o.id) as items
       from public.orders o
      where ($1::text is null or o.status in (select jsonb_array_elements_text($1::text::jsonb)))
        and ($2::date is null or o.created_at >= $2::date::timestamp at time zone $11::text)
        and ($3::date is null or o.created_at < ($3::date + 1)::timestamp at time zone $11::text)
        and ($4::text is null or right(o.id::text, 6) like $4 || '%')
        and ($5::uuid is null or o.id = $5::uuid)
        and ($6::text is null or o.customer_email ilike $6 escape '\\' or o.customer_name ilike $6 escape '\\'
             or right(o.id::text, 6) = $7::text)
        and ($8::text is null or (o.created_at, o.seq) < ($8::text::timestamptz, ${seqOf('public.orders', '$9')}))
      order by o.created_at desc, o.seq desc
      limit $10`,
    [
      query.status ? JSON.stringify(storedSpellings(query.status)) : null,
      query.from,
      query.to,
      search.kind === 'number' ? search.prefix : null,
      search.kind === 'id' ? search.id : null,
      search.kind === 'text' ? search.pattern : null,
      search.kind === 'text' ? search.number : null,
      after?.at ?? null,
      after?.id ?? null,
      limit + 1,
      timeZone,
    ],
  );
  const orders = rows.map((r) => ({
    id: r.id,
    number: orderNumber(r.id),
    createdAt: r.at,
    customerName: r.customer_name,
    customerEmail: r.customer_email,
    guest: r.guest,
    totalCents: r.total_cents,
    refundedCents: r.refunded_cents,
    status: statusOf(r.status),
    items: r.items,
  }));
  return toPage(orders, limit, (order) => ({ at: order.createdAt, id: order.id }));
}

// One order ---------------------------------------------------------------------------------------------------------

/** An order as its admin page shows it. */
export interface AdminOrderDetail {
  id: string;
  number: string;
  createdAt: string;
  status: StatusKey;
  customerName: string;
  customerEmail: string;
  /** The shopper's account, or null for a guest. */
  userId: string | null;
  address: ShipTo;
  service: string;
  /** YYYY-MM-DD, or null. */
  estimatedDelivery: string | null;
  subtotalCents: number;
  /** The code and the automatic offer, as recorded. */
  discount: OrderDiscount;
  shippingCents: number;
  taxCents: number;
  totalCents: number;
  paymentIntentId: string;
  trackingNumber: string | null;
  /** Only a web address (anything else stored is not linked). */
  trackingUrl: string | null;
  /** The label: a PDF the shop stores (served by the admin), a carrier's address, or none yet. */
  label: { kind: 'pdf' } | { kind: 'url'; url: string } | null;
  items: { name: string; sku: string; variant: string | null; quantity: number; priceCents: number }[];
  refunds: { id: string; amountCents: number; status: string; createdAt: string; adminEmail: string | null }[];
  /** What has been refunded (refunds pending or succeeded). */
  refundedCents: number;
  jobs: OrderJob[];
}

export async function orderForAdmin(tx: Sql, orderId: string): Promise<AdminOrderDetail | null> {
  const [row] = await tx.query<{
    id: string;
    created_at: Date | string;
    status: string;
    customer_name: string;
    customer_email: string;
    user_id: string | null;
    shipping_address: string | Record<string, string | undefined>;
    shipping_method: string | Record<string, unknown>;
    estimated_delivery: string | null;
    subtotal_cents: number;
    discount_code: string | null;
    discount_cents: number;
    offer_cents: number;
    shipping_discount_cents: number;
    shipping_cents: number;
    tax_cents: number;
    total_cents: number;
    payment_intent_id: string;
    tracking_number: string | null;
    tracking_url: string | null;
    label_url: string | null;
    has_pdf: boolean;
    items:
      | string
      | {
          product_name: string;
          product_sku: string;
          quantity: number;
          price_cents: number;
          selected_color: string | null;
          selected_size: string | null;
        }[];
    refunds: string | { refund_id: string; amount_cents: number; status: string; created_at: string; email: string | null }[];
  }>(
    `select o.id, o.created_at, o.status, o.customer_name, o.customer_email, o.user_id, o.shipping_address,
            o.shipping_method, o.estimated_delivery::text as estimated_delivery, o.subtotal_cents, o.shipping_cents,
            o.discount_code, o.discount_cents, o.offer_cents, o.shipping_discount_cents, o.tax_cents, o.total_cents,
            o.payment_intent_id, o.tracking_number, o.tracking_url, o.label_url,
            exists (select 1 from public.order_labels l where l.order_id = o.id) as has_pdf,
            coalesce((select json_agg(json_build_object('product_name', i.product_name, 'product_sku', i.product_sku,
                        'quantity', i.quantity, 'price_cents', i.price_cents, 'selected_color', i.selected_color,
                        'selected_size', i.selected_size) order by i.id)
                      from public.order_items i where i.order_id = o.id), '[]'::json) as items,
            coalesce((select json_agg(json_build_object('refund_id', r.refund_id, 'amount_cents', r.amount_cents,
                        'status', r.status, 'created_at', ${isoText('r.created_at')}, 'email', u.email)
                        order by r.created_at)
                      from public.order_refunds r left join auth.users u on u.id = r.admin_id
                      where r.order_id = o.id), '[]'::json) as refunds
       from public.orders o where o.id = $1`,
    [orderId],
  );
  if (!row) return null;
  const refunds = jsonColumn(row.refunds);
  return {
    id: row.id,
    number: orderNumber(row.id),
    createdAt: iso(row.created_at) ?? '',
    status: statusOf(row.status),
    customerName: row.customer_name,
    customerEmail: row.customer_email,
    userId: row.user_id,
    address: shipTo(row.shipping_address),
    service: shippingService(row.shipping_method),
    estimatedDelivery: row.estimated_delivery,
    subtotalCents: row.subtotal_cents,
    discount: recordedDiscount(row),
    shippingCents: row.shipping_cents,
    taxCents: row.tax_cents,
    totalCents: row.total_cents,
    paymentIntentId: row.payment_intent_id,
    trackingNumber: row.tracking_number,
    trackingUrl: webLink(row.tracking_url),
    label: row.has_pdf ? { kind: 'pdf' } : webLink(row.label_url) ? { kind: 'url', url: row.label_url ?? '' } : null,
    items: jsonColumn(row.items).map((i) => ({
      name: i.product_name,
      sku: i.product_sku,
      variant: variantLabel(i.selected_color, i.selected_size),
      quantity: i.quantity,
      priceCents: i.price_cents,
    })),
    refunds: refunds.map((r) => ({
      id: r.refund_id,
      amountCents: r.amount_cents,
      status: r.status,
      createdAt: r.created_at,
      adminEmail: r.email,
    })),
    refundedCents: refunds.filter((r) => refundCounts(r.status)).reduce((sum, r) => sum + r.amount_cents, 0),
    jobs: await orderJobs(tx, row.id),
  };
}

export interface JobRow {
  id: string;
  dedupe_key: string;
  attempts: number;
  last_error: string | null;
  next_attempt_at: Date | string;
  done_at: Date | string | null;
  running: boolean;
}

export const JOB_COLUMNS = `id::text as id, dedupe_key, attempts, last_error, next_attempt_at, done_at,
  coalesce(locked_until > now(), false) as running`;

function jobState(job: JobRow): JobState {
  if (job.done_at) return 'done';
  if (job.running) return 'running';
  if (job.attempts >= MAX_ATTEMPTS) return 'failed';
  return job.last_error ? 'retrying' : 'waiting';
}

export function toOrderJob(job: JobRow, orderId: string): OrderJob {
  const state = jobState(job);
  return {
    id: job.id,
    label: ORDER_JOBS.find((j) => job.dedupe_key === `${j.prefix}:${orderId}`)?.label ?? job.dedupe_key,
    state,
    attempts: job.attempts,
    lastError: job.last_error,
    nextAttemptAt: state === 'waiting' || state === 'retrying' ? iso(job.next_attempt_at) : null,
    doneAt: iso(job.done_at),
  };
}

/** The order's outbox jobs (label, e-mails), with where each stands, in ORDER_JOBS order. */
async function orderJobs(tx: Sql, orderId: string): Promise<OrderJob[]> {
  const rows = await tx.query<JobRow>(
    `select ${JOB_COLUMNS} from public.outbox where dedupe_key in (select jsonb_array_elements_text($1::text::jsonb))`,
    [JSON.stringify(jobKeys(orderId))],
  );
  return ORDER_JOBS.flatMap(({ prefix }) => {
    const job = rows.find((r) => r.dedupe_key === `${prefix}:${orderId}`);
    return job ? [toOrderJob(job, orderId)] : [];
  });
}

/** The label PDF the shop stores for an order, or null. */
export async function labelPdf(tx: Sql, orderId: string): Promise<Uint8Array | null> {
  const [row] = await tx.query<{ pdf: Uint8Array }>(`select pdf from public.order_labels where order_id = $1`, [orderId]);
  return row ? new Uint8Array(row.pdf) : null;
}

/** What the payment processor says about an order's payment now, or why it could not be asked. */
export type PaymentState = { ok: true; status: PaymentIntentStatus; amountCents: number } | { ok: false; message: string };

/**
 * Asks the payments port about the order's payment intent, giving up after `timeoutMs` (the page then shows what the
 * shop recorded instead of waiting on the processor).
 */
export async function paymentState(payments: PaymentsPort, intentId: string, timeoutMs = 5000): Promise<PaymentState> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const intent = await Promise.race([
      payments.retrieveIntent(intentId),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
      }),
    ]);
    return { ok: true, status: intent.status, amountCents: intent.amountCents };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}
