import {
  cancelledMailKey,
  JOB_STATE_LABELS,
  type JobState,
  jobKeys,
  ORDER_JOBS,
  type OrderActionAnswer,
  type OrderJob,
  type OrderListQuery,
  orderSearch,
  refundKey,
  refundMailKey,
  retryable,
  type SettableStatus,
  shippedMailKey,
  storedSpellings,
  transitionProblem,
} from '@/features/admin/order-admin';
import { formatPrice } from '@/features/catalog/catalog';
import { shippingService, shipTo } from '@/features/checkout/order-page.server';
import {
  orderNumber,
  type ShipTo,
  STATUS_LABELS,
  type StatusKey,
  statusOf,
  variantLabel,
  webLink,
} from '@/features/orders/orders';
import { refundCounts, refundCountsSql, refundedCentsSql } from '@/features/orders/refunds.server';
import { jsonColumn, type Sql } from '@/server/db/database.server';
import { queueJob } from '@/server/outbox/jobs.server';
import { MAX_ATTEMPTS } from '@/server/outbox/outbox.server';
import { type PaymentIntentStatus, PaymentsError, type PaymentsPort, type Refund } from '@/server/payments/payments.port';
import { type AdminCaller, recordAction } from './admin.server';
import { type Cursor, isoText, type Page, seqOf, toPage } from './paging.server';

// The orders part of the admin (issue 10): the list, an order's page, and what an admin may do to an order. Every
// query runs as service_role through the admin's `run`; every change records its admin_actions row in the same
// transaction, and only when something changed, so a double click records one action.

const iso = (value: Date | string | null) =>
  value === null ? null : value instanceof Date ? value.toISOString() : String(value);

/** What an action refers to in the activity log: the number the shop and the shopper use, and the order's id. */
const target = (orderId: string) => `${orderNumber(orderId)} (order ${orderId})`;
const label = (status: string | null) => STATUS_LABELS[statusOf(status)];

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
            o.tax_cents, o.total_cents, o.payment_intent_id, o.tracking_number, o.tracking_url, o.label_url,
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

interface JobRow {
  id: string;
  dedupe_key: string;
  attempts: number;
  last_error: string | null;
  next_attempt_at: Date | string;
  done_at: Date | string | null;
  running: boolean;
}

const JOB_COLUMNS = `id::text as id, dedupe_key, attempts, last_error, next_attempt_at, done_at,
  coalesce(locked_until > now(), false) as running`;

function jobState(job: JobRow): JobState {
  if (job.done_at) return 'done';
  if (job.running) return 'running';
  if (job.attempts >= MAX_ATTEMPTS) return 'failed';
  return job.last_error ? 'retrying' : 'waiting';
}

function toOrderJob(job: JobRow, orderId: string): OrderJob {
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

// What an admin does to an order ----------------------------------------------------------------------------------

export type OrderActionResult =
  | { ok: true; answer: OrderActionAnswer }
  | { ok: false; status: 400 | 404 | 409 | 502; code: string; message: string };

const NO_SUCH_ORDER = { ok: false, status: 404, code: 'not_found', message: 'No such order.' } as const;

interface OrderMoney {
  status: string;
  totalCents: number;
  refundedCents: number;
  /** Refunds the processor reported as failed or canceled (recorded, not counted). */
  failedRefunds: number;
  paymentIntentId: string;
}

/** The order's status as stored, its total, what has been refunded, and its payment; null when there is no such order. */
async function orderMoney(tx: Sql, orderId: string): Promise<OrderMoney | null> {
  const [row] = await tx.query<{
    status: string;
    total_cents: number;
    refunded_cents: number;
    failed_refunds: number;
    payment_intent_id: string;
  }>(
    `select o.status, o.total_cents, o.payment_intent_id,
            ${refundedCentsSql('o.id')} as refunded_cents,
            (select count(*)::int from public.order_refunds r
              where r.order_id = o.id and not ${refundCountsSql('r.status')}) as failed_refunds
       from public.orders o where o.id = $1`,
    [orderId],
  );
  return row
    ? {
        status: row.status,
        totalCents: row.total_cents,
        refundedCents: row.refunded_cents,
        failedRefunds: row.failed_refunds,
        paymentIntentId: row.payment_intent_id,
      }
    : null;
}

const answer = (changed: boolean, money: Pick<OrderMoney, 'status' | 'refundedCents'>, message: string): OrderActionResult => ({
  ok: true,
  answer: { changed, status: statusOf(money.status), refundedCents: money.refundedCents, message },
});

/**
 * Queues the shopper's shipped e-mail, once per order (its de-duplication key), linking to the order page with the
 * token the confirmation e-mail's job carries (the shop keeps only the token's hash).
 */
async function queueShippedMail(tx: Sql, orderId: string): Promise<void> {
  await queueJob(tx, 'order-shipped-email', { orderId, ...(await customerToken(tx, orderId)) }, shippedMailKey(orderId));
}

/** The order page's token the confirmation e-mail's job carries, for the shopper's later e-mails to link with. */
async function customerToken(tx: Sql, orderId: string): Promise<{ accessToken?: string }> {
  const [confirmation] = await tx.query<{ token: string | null }>(
    `select payload ->> 'accessToken' as token from public.outbox where dedupe_key = $1`,
    [`mail:customer:${orderId}`],
  );
  return confirmation?.token ? { accessToken: confirmation.token } : {};
}

/**
 * Queues the shopper's e-mail of a refund (once per refund) or of the order's cancellation (once per order, naming
 * the refund it came with), in the transaction that records it.
 */
async function queueChangeMail(tx: Sql, orderId: string, change: { refundId: string } | 'cancel'): Promise<void> {
  const token = await customerToken(tx, orderId);
  if (change === 'cancel')
    await queueJob(tx, 'order-change-email', { orderId, change: 'cancel', ...token }, cancelledMailKey(orderId));
  else
    await queueJob(
      tx,
      'order-change-email',
      { orderId, change: 'refund', refundId: change.refundId, ...token },
      refundMailKey(orderId, change.refundId),
    );
}

/**
 * Moves an order on (processing → shipped → delivered) with a compare-and-set on the status the order had when it was
 * read: of two clicks, one changes it and records the action; the other finds it done and changes nothing. Marking
 * it shipped queues the shopper's shipped e-mail in the same transaction. `from` is the status the admin saw.
 */
export async function changeOrderStatus(
  me: AdminCaller,
  orderId: string,
  { from, to }: { from: StatusKey; to: SettableStatus },
): Promise<OrderActionResult> {
  const refused = transitionProblem(from, to);
  if (refused) return { ok: false, status: 400, code: 'invalid_transition', message: refused };
  const before = await me.run((tx) => orderMoney(tx, orderId));
  if (!before) return NO_SUCH_ORDER;
  const settled = (money: OrderMoney): OrderActionResult => {
    if (statusOf(money.status) === to) return answer(false, money, `The order is already ${STATUS_LABELS[to]}.`);
    return {
      ok: false,
      status: 409,
      code: 'status_changed',
      message: `The order is ${label(money.status)} now, not ${STATUS_LABELS[from]}: reload the page to see its current state.`,
    };
  };
  if (statusOf(before.status) !== from) return settled(before);
  const changed = await me.run(async (tx) => {
    const [row] = await tx.query(`update public.orders set status = $2 where id = $1 and status = $3 returning id`, [
      orderId,
      to,
      before.status,
    ]);
    if (!row) return false;
    await recordAction(tx, me.admin, { action: 'order.status', target: target(orderId), before: before.status, after: to });
    if (to === 'shipped') await queueShippedMail(tx, orderId);
    return true;
  });
  if (changed) return answer(true, { ...before, status: to }, `Order ${orderNumber(orderId)} is ${STATUS_LABELS[to]}.`);
  const now = await me.run((tx) => orderMoney(tx, orderId));
  return now ? settled(now) : NO_SUCH_ORDER;
}

/** A processor's refusal or silence, in words for the admin (its own message, which names the problem). */
function processorProblem(error: unknown): OrderActionResult {
  if (error instanceof PaymentsError) {
    return { ok: false, status: 409, code: error.code, message: `The payment processor refused the refund: ${error.message}` };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { ok: false, status: 502, code: 'processor_unavailable', message: `The payment processor did not answer: ${message}` };
}

/** Records a refund the processor made, once (keyed by its id). Returns whether this call recorded it. */
async function recordRefund(tx: Sql, me: AdminCaller, orderId: string, refund: Refund): Promise<boolean> {
  const [row] = await tx.query(
    `insert into public.order_refunds (refund_id, order_id, amount_cents, status, admin_id) values ($1, $2, $3, $4, $5)
     on conflict (refund_id) do nothing returning refund_id`,
    [refund.id, orderId, refund.amountCents, refund.status, me.admin.id],
  );
  return Boolean(row);
}

/**
 * Records a refund the processor answered, once, with its admin action (what was refunded before and after, and the
 * refund's status: a failed one changes nothing). Returns whether this call recorded it.
 */
async function recordRefundAction(tx: Sql, me: AdminCaller, orderId: string, refund: Refund, refundedBefore: number) {
  if (!(await recordRefund(tx, me, orderId, refund))) return false;
  if (refundCounts(refund.status)) await queueChangeMail(tx, orderId, { refundId: refund.id });
  await recordAction(tx, me.admin, {
    action: 'order.refund',
    target: target(orderId),
    before: { refundedCents: refundedBefore },
    after: {
      refundedCents: refundedBefore + (refundCounts(refund.status) ? refund.amountCents : 0),
      refundId: refund.id,
      refundStatus: refund.status,
    },
  });
  return true;
}

/**
 * Refunds an order through the payments port: all that is left, or `amountCents` of it. The idempotency key is the
 * order, what had been refunded and the amount asked (refundKey), so a double click or a retry after a lost answer gets
 * the processor's same refund back, which is recorded once (with one admin action). When nothing is left, nothing
 * is asked and nothing changes. When the processor refuses, nothing changes and its message is the answer.
 */
export async function refundOrder(
  me: AdminCaller,
  payments: PaymentsPort,
  orderId: string,
  { amountCents }: { amountCents?: number | undefined } = {},
): Promise<OrderActionResult> {
  const before = await me.run((tx) => orderMoney(tx, orderId));
  if (!before) return NO_SUCH_ORDER;
  const left = before.totalCents - before.refundedCents;
  if (left <= 0) return answer(false, before, 'This order has been refunded in full.');
  if (amountCents !== undefined && amountCents > left) {
    return {
      ok: false,
      status: 400,
      code: 'amount_too_large',
      message: `At most ${formatPrice(left)} of this order is left to refund.`,
    };
  }
  let refund: Refund;
  try {
    refund = await payments.refund({
      intentId: before.paymentIntentId,
      ...(amountCents === undefined ? {} : { amountCents }),
      idempotencyKey: refundKey(orderId, { ...before, amountCents }),
    });
  } catch (error) {
    return processorProblem(error);
  }
  const recorded = await me.run((tx) => recordRefundAction(tx, me, orderId, refund, before.refundedCents));
  if (!refundCounts(refund.status)) return refundFailed(refund);
  const now = (await me.run((tx) => orderMoney(tx, orderId))) ?? before;
  return answer(recorded, now, recorded ? `Refunded ${formatPrice(refund.amountCents)}.` : 'This refund was already recorded.');
}

/** The answer when the processor took the refund request but reports it as not (yet) made. */
function refundFailed(refund: Refund): OrderActionResult {
  return {
    ok: false,
    status: 502,
    code: 'refund_failed',
    message: `The payment processor reports the refund as ${refund.status}.`,
  };
}

/**
 * Cancels an order that has not shipped, refunding all that is left first: when the processor refuses, nothing
 * changes and the admin reads its message. Then, in one transaction, the refund is recorded and the status set with a
 * compare-and-set, so a double click or a retry refunds once (the same idempotency key) and cancels once. Should the
 * order ship between the refund and the cancel, the refund is recorded and the answer says the order was not cancelled.
 */
export async function cancelOrder(me: AdminCaller, payments: PaymentsPort, orderId: string): Promise<OrderActionResult> {
  const before = await me.run((tx) => orderMoney(tx, orderId));
  if (!before) return NO_SUCH_ORDER;
  if (statusOf(before.status) === 'cancelled') return answer(false, before, 'The order is already cancelled.');
  const refused = transitionProblem(statusOf(before.status), 'cancelled');
  if (refused) return { ok: false, status: 409, code: 'invalid_transition', message: refused };

  let refund: Refund | null = null;
  if (before.totalCents - before.refundedCents > 0) {
    try {
      refund = await payments.refund({
        intentId: before.paymentIntentId,
        idempotencyKey: refundKey(orderId, before),
      });
    } catch (error) {
      return processorProblem(error);
    }
    if (!refundCounts(refund.status)) {
      // Recorded, so that asking again is a new refund (refundKey); the order is not cancelled.
      const failed = refund;
      await me.run((tx) => recordRefundAction(tx, me, orderId, failed, before.refundedCents));
      return refundFailed(refund);
    }
  }
  const refundedCents = before.refundedCents + (refund ? refund.amountCents : 0);
  const outcome = await me.run(async (tx) => {
    const recorded = refund ? await recordRefund(tx, me, orderId, refund) : false;
    const [cancelled] = await tx.query(
      `update public.orders set status = 'cancelled' where id = $1 and status = $2 returning id`,
      [orderId, before.status],
    );
    const change = { refundedCents, ...(refund ? { refundId: refund.id } : {}) };
    if (cancelled) {
      await queueChangeMail(tx, orderId, 'cancel');
      await recordAction(tx, me.admin, {
        action: 'order.cancel',
        target: target(orderId),
        before: { status: before.status, refundedCents: before.refundedCents },
        after: { status: 'cancelled', ...change },
      });
    } else if (recorded) {
      // The money moved though the status did not (the order changed meanwhile): that is recorded, and told, too.
      if (refund && refundCounts(refund.status)) await queueChangeMail(tx, orderId, { refundId: refund.id });
      await recordAction(tx, me.admin, {
        action: 'order.refund',
        target: target(orderId),
        before: { refundedCents: before.refundedCents },
        after: change,
      });
    }
    return { cancelled: Boolean(cancelled), recorded };
  });
  const now = (await me.run((tx) => orderMoney(tx, orderId))) ?? before;
  if (outcome.cancelled) {
    return answer(
      true,
      now,
      refund
        ? `Order ${orderNumber(orderId)} is cancelled and ${formatPrice(refund.amountCents)} refunded.`
        : `Order ${orderNumber(orderId)} is cancelled.`,
    );
  }
  if (statusOf(now.status) === 'cancelled') return answer(false, now, 'The order is already cancelled.');
  return {
    ok: false,
    status: 409,
    code: 'status_changed',
    message: `The order became ${label(now.status)} meanwhile, so it was not cancelled${outcome.recorded ? `; its refund of ${formatPrice(refund?.amountCents ?? 0)} is recorded` : ''}.`,
  };
}

export type RetryResult =
  | { ok: true; changed: boolean; job: OrderJob; message: string }
  | { ok: false; status: 404; code: string; message: string };

/**
 * Sends one of an order's failed jobs (retrying later, or given up) back to the worker now: its attempts start again
 * and it is due at once. A job that is done, running or already waiting is left as it is, so of a double click one
 * request resets it (and records the action) and the other changes nothing. The caller nudges the outbox after.
 */
export async function retryOrderJob(me: AdminCaller, orderId: string, jobId: string): Promise<RetryResult> {
  const result = await me.run(async (tx) => {
    // Locked, so a concurrent retry waits and then reads the job as this one left it.
    const [job] = await tx.query<JobRow>(
      `select ${JOB_COLUMNS} from public.outbox
        where id = $1::bigint and dedupe_key in (select jsonb_array_elements_text($2::text::jsonb))
        for update`,
      [jobId, JSON.stringify(jobKeys(orderId))],
    );
    if (!job) return null;
    const before = toOrderJob(job, orderId);
    if (!retryable(before.state)) return { changed: false, job: before };
    const [reset] = await tx.query<JobRow>(
      `update public.outbox set attempts = 0, next_attempt_at = now(), last_error = null, locked_until = null
        where id = $1::bigint returning ${JOB_COLUMNS}`,
      [job.id],
    );
    await recordAction(tx, me.admin, {
      action: 'order.job-retry',
      target: target(orderId),
      before: { job: before.label, attempts: before.attempts, lastError: before.lastError },
      after: { job: before.label, attempts: 0 },
    });
    return { changed: true, job: toOrderJob(reset ?? job, orderId) };
  });
  if (!result) return { ok: false, status: 404, code: 'not_found', message: 'This order has no such job.' };
  return {
    ok: true,
    ...result,
    message: result.changed
      ? `${result.job.label}: queued again.`
      : `${result.job.label}: ${JOB_STATE_LABELS[result.job.state].toLowerCase()}, nothing to retry.`,
  };
}
