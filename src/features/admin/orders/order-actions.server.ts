import {
  cancelledMailKey,
  JOB_STATE_LABELS,
  jobKeys,
  type OrderActionAnswer,
  type OrderJob,
  refundKey,
  refundMailKey,
  restockOffered,
  retryable,
  type SettableStatus,
  shippedMailKey,
  transitionProblem,
} from '@/features/admin/orders/order-admin';
import { formatPrice } from '@/features/catalogue/catalogue';
import { orderNumber, STATUS_LABELS, type StatusKey, statusOf } from '@/features/orders/orders';
import type { PricedLineRefund, RefundLine } from '@/features/orders/refund-lines';
import { refundCounts, refundCountsSql, refundedCentsSql } from '@/features/orders/refunds.server';
import { describeItems, restockOrder } from '@/features/stock/stock.server';
import type { Sql } from '@/server/db/database.server';
import { logger } from '@/server/log.server';
import { refunds } from '@/server/metrics.server';
import { queueJob } from '@/server/outbox/jobs.server';
import { PaymentsError, type PaymentsPort, type Refund } from '@/server/payments/payments.port';
import { type AdminCaller, recordAction } from '../admin.server';
import { JOB_COLUMNS, type JobRow, toOrderJob } from './order-queries.server';
import { lineRefundFor } from './refund-lines.server';

const log = logger('admin');

// What an admin does to an order: mark it shipped or delivered, refund it, cancel it, retry one of its jobs. Every
// change runs as service_role through the admin's `run` and records its admin_actions row in the same transaction, and
// only when something changed, so a double click records one action.

/** What an action refers to in the activity log: the number the shop and the shopper use, and the order's id. */
export const target = (orderId: string) => `${orderNumber(orderId)} (order ${orderId})`;
const label = (status: string | null) => STATUS_LABELS[statusOf(status)];

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
export async function customerToken(tx: Sql, orderId: string): Promise<{ accessToken?: string }> {
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
export function processorProblem(error: unknown): OrderActionResult {
  if (error instanceof PaymentsError) {
    return { ok: false, status: 409, code: error.code, message: `The payment processor refused the refund: ${error.message}` };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { ok: false, status: 502, code: 'processor_unavailable', message: `The payment processor did not answer: ${message}` };
}

/** Records a refund the processor made, once (keyed by its id). Returns whether this call recorded it. */
export async function recordRefund(
  tx: Sql,
  me: AdminCaller,
  orderId: string,
  refund: Refund,
  items: PricedLineRefund['items'] | null = null,
): Promise<boolean> {
  const [row] = await tx.query(
    `insert into public.order_refunds (refund_id, order_id, amount_cents, status, admin_id, items)
     values ($1, $2, $3, $4, $5, $6::text::jsonb)
     on conflict (refund_id) do nothing returning refund_id`,
    [refund.id, orderId, refund.amountCents, refund.status, me.admin.id, items && JSON.stringify(items)],
  );
  return Boolean(row);
}

/**
 * Records a refund the processor answered, once, with its admin action (what was refunded before and after, and the
 * refund's status: a failed one changes nothing). Returns whether this call recorded it.
 */
async function recordRefundAction(
  tx: Sql,
  me: AdminCaller,
  orderId: string,
  refund: Refund,
  refundedBefore: number,
  items: PricedLineRefund['items'] | null = null,
) {
  if (!(await recordRefund(tx, me, orderId, refund, items))) return false;
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
 * Puts back what the order took from the counts, once, in the caller's transaction (the one recording the refund or
 * the cancellation it comes with), recorded as an admin action. Returns what went back (nothing the second time).
 */
async function restock(tx: Sql, me: AdminCaller, orderId: string) {
  const back = await restockOrder(tx, orderId);
  if (back.length > 0) {
    await recordAction(tx, me.admin, {
      action: 'stock.restock',
      target: target(orderId),
      after: { restocked: describeItems(back) },
    });
  }
  return back;
}

const restockedNote = (back: readonly { quantity: number; label: string }[]) =>
  back.length > 0 ? ` ${describeItems(back)} back in stock.` : '';

/**
 * Refunds an order through the payments port: all that is left, `amountCents` of it, or what was paid for some of its
 * `lines` (their price less their share of the discount, with the tax on that: lineRefundFor). The idempotency key is
 * the order, what had been refunded and the amount asked (refundKey, and the lines), so a double click or a retry
 * after a lost answer gets the processor's same refund back, which is recorded once (with one admin action). When
 * nothing is left, nothing is asked and nothing changes. When the processor refuses, nothing changes and its message
 * is the answer.
 */
export async function refundOrder(
  me: AdminCaller,
  payments: PaymentsPort,
  orderId: string,
  {
    amountCents: asked,
    lines,
    restock: putBack = false,
  }: { amountCents?: number | undefined; lines?: readonly RefundLine[] | undefined; restock?: boolean } = {},
): Promise<OrderActionResult> {
  const before = await me.run((tx) => orderMoney(tx, orderId));
  if (!before) return NO_SUCH_ORDER;
  const left = before.totalCents - before.refundedCents;
  if (left <= 0) return answer(false, before, 'This order has been refunded in full.');
  const priced = lines ? await me.run((tx) => lineRefundFor(tx, orderId, lines)) : null;
  if (priced && 'problem' in priced) return { ok: false, status: 400, code: 'invalid_lines', message: priced.problem };
  const amountCents = priced ? priced.amountCents : asked;
  const linesKey = priced ? `:lines-${priced.items.map((i) => `${i.itemId}x${i.quantity}`).join('-')}` : '';
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
      idempotencyKey: `${refundKey(orderId, { ...before, amountCents })}${linesKey}`,
    });
  } catch (error) {
    return processorProblem(error);
  }
  const { recorded, back } = await me.run(async (tx) => {
    const recorded = await recordRefundAction(tx, me, orderId, refund, before.refundedCents, priced?.items ?? null);
    // The owner chose to put the items back: with the refund that counts, once (a repeated click puts back nothing).
    const back = recorded && putBack && refundCounts(refund.status) ? await restock(tx, me, orderId) : [];
    return { recorded, back };
  });
  if (recorded) refunded('refund', orderId, refund);
  if (!refundCounts(refund.status)) return refundFailed(refund);
  const now = (await me.run((tx) => orderMoney(tx, orderId))) ?? before;
  return answer(
    recorded,
    now,
    recorded ? `Refunded ${formatPrice(refund.amountCents)}.${restockedNote(back)}` : 'This refund was already recorded.',
  );
}

/**
 * Puts back what the order took from the counts, once, on its own (the owner did not tick it with the refund or the
 * cancellation, or the items came back later); recorded as an admin action. A second click puts back nothing. Only
 * once the order is cancelled or (partly) refunded: a live order's items are in its box, so putting them back would
 * sell them twice (409, and the admin page does not offer it then).
 */
export async function restockOrderAction(me: AdminCaller, orderId: string): Promise<OrderActionResult> {
  const result = await me.run(async (tx) => {
    const money = await orderMoney(tx, orderId);
    if (!money) return null;
    if (!restockOffered(statusOf(money.status), money.refundedCents)) return { money, back: null };
    return { money, back: await restock(tx, me, orderId) };
  });
  if (!result) return NO_SUCH_ORDER;
  const { money, back } = result;
  if (!back) {
    return {
      ok: false,
      status: 409,
      code: 'order_live',
      message: `${orderNumber(orderId)} is ${label(money.status)}: put its items back in stock after it is cancelled or refunded.`,
    };
  }
  return answer(
    back.length > 0,
    money,
    back.length > 0 ? `${describeItems(back)} back in stock.` : 'Nothing of this order is left to put back in stock.',
  );
}

/** Counts and logs a refund the processor answered, once, when it was recorded. */
export function refunded(kind: 'refund' | 'cancel' | 'return', orderId: string, refund: Refund): void {
  const made = refundCounts(refund.status);
  if (made) refunds.inc({ kind });
  const line = { orderId, refundId: refund.id, amountCents: refund.amountCents, refundStatus: refund.status, kind };
  if (made) log.info(line, 'refund made');
  else log.warn(line, 'refund not made: the processor reports it as not (yet) made');
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
export async function cancelOrder(
  me: AdminCaller,
  payments: PaymentsPort,
  orderId: string,
  { restock: putBack = false }: { restock?: boolean } = {},
): Promise<OrderActionResult> {
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
      if (await me.run((tx) => recordRefundAction(tx, me, orderId, failed, before.refundedCents)))
        refunded('cancel', orderId, failed);
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
    let back: Awaited<ReturnType<typeof restock>> = [];
    if (cancelled) {
      await queueChangeMail(tx, orderId, 'cancel');
      await recordAction(tx, me.admin, {
        action: 'order.cancel',
        target: target(orderId),
        before: { status: before.status, refundedCents: before.refundedCents },
        after: { status: 'cancelled', ...change },
      });
      // The owner chose to put the items back: in the transaction that cancels, so never without it.
      if (putBack) back = await restock(tx, me, orderId);
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
    return { cancelled: Boolean(cancelled), recorded, back };
  });
  if (refund && outcome.recorded) refunded('cancel', orderId, refund);
  const now = (await me.run((tx) => orderMoney(tx, orderId))) ?? before;
  if (outcome.cancelled) {
    return answer(
      true,
      now,
      (refund
        ? `Order ${orderNumber(orderId)} is cancelled and ${formatPrice(refund.amountCents)} refunded.`
        : `Order ${orderNumber(orderId)} is cancelled.`) + restockedNote(outcome.back),
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
