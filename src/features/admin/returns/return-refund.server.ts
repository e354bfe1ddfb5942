// A received return's refund, exactly once under double clicks and two servers (decision 011). The refund is first
// claimed on the return's row (its idempotency key, amount, shipping and lines, under the row lock): of two clicks,
// one claims it and the other finds the claim and asks the processor for that same refund with the same key, so the
// processor makes one. The answer is recorded as any refund of lines is (order_refunds, with its lines), and the
// return moves to refunded with a compare-and-set on the claim's key, once.
import { formatPrice } from '@/features/catalogue/catalogue';
import type { PricedLineRefund } from '@/features/orders/refund-lines';
import { refundCounts, refundedCentsSql } from '@/features/orders/refunds.server';
import { returnNumber, returnRefund } from '@/features/returns/returns';
import { queueReturnMail } from '@/features/returns/returns.server';
import { jsonColumn, type Sql } from '@/server/db/database.server';
import { PaymentsError, type PaymentsPort, type Refund } from '@/server/payments/payments.port';
import { type AdminCaller, recordAction } from '../admin.server';
import { processorProblem, recordRefund, refunded } from '../orders/order-actions.server';
import { done, lockReturn, NO_SUCH_RETURN, proposal, type ReturnActionResult, settled, target } from './return-rows.server';

interface Claim {
  orderId: string;
  number: string;
  intentId: string;
  key: string;
  amountCents: number;
  shippingCents: number;
  lines: PricedLineRefund['items'];
}

/** Gives the claim up when the processor made nothing: the next click asks anew, with a new key. */
async function release(tx: Sql, returnId: string, key: string): Promise<void> {
  await tx.query(
    `update public.order_returns
        set refund_key = null, refund_amount_cents = null, refund_shipping_cents = 0, refund_lines = null,
            refund_attempts = refund_attempts + 1
      where id = $1 and refund_key = $2 and refund_id is null`,
    [returnId, key],
  );
}

/** Claims the return's refund, or finds the claim an earlier click made; else the answer to give. */
async function claim(tx: Sql, returnId: string, shipping: boolean): Promise<Claim | ReturnActionResult> {
  const r = await lockReturn(tx, returnId);
  if (!r) return NO_SUCH_RETURN;
  const refused = settled('refund', r, 'refunded');
  if (refused) return refused;
  if (r.replacing)
    return {
      ok: false,
      status: 409,
      code: 'replacement_sent',
      message: 'The replacement of this exchange is being sent: it is not refunded as well.',
    };
  // The order locked too (after the return, as every path here locks them): another return of it claiming at once
  // waits, then sees this claim's shipping, so the shipping is given back once per order, not once per return.
  const [order] = await tx.query<{ payment_intent_id: string }>(
    'select payment_intent_id from public.orders where id = $1 for update',
    [r.order_id],
  );
  const base = { orderId: r.order_id, number: r.number, intentId: order?.payment_intent_id ?? '' };
  if (r.refund_key && r.refund_amount_cents)
    return {
      ...base,
      key: r.refund_key,
      amountCents: r.refund_amount_cents,
      shippingCents: r.refund_shipping_cents,
      lines: jsonColumn(r.refund_lines ?? '[]'),
    };
  const offer = await proposal(tx, r);
  if (!offer.priced) return { ok: false, status: 409, code: 'cannot_refund', message: offer.problem ?? 'No such order.' };
  const money = returnRefund({
    linesCents: offer.linesCents,
    includeShipping: shipping,
    shippingLeftCents: offer.shippingLeftCents,
    leftCents: offer.leftCents,
  });
  if (money.amountCents <= 0)
    return { ok: false, status: 409, code: 'refunded_in_full', message: 'Nothing is left to refund of this order.' };
  const key = `return:${r.id}:${r.refund_attempts}`;
  await tx.query(
    `update public.order_returns
        set refund_key = $2, refund_amount_cents = $3, refund_shipping_cents = $4, refund_lines = $5::text::jsonb
      where id = $1`,
    [r.id, key, money.amountCents, money.shippingCents, JSON.stringify(offer.priced.items)],
  );
  return { ...base, key, amountCents: money.amountCents, shippingCents: money.shippingCents, lines: offer.priced.items };
}

/**
 * Refunds a received return through the payments port: what was paid for its lines (their price less their share of
 * any discount, with the tax on that), plus the order's shipping when the owner ticks `shipping`, never more than is
 * left to refund of the order. Once, under any number of clicks on any number of servers; the shopper is e-mailed
 * once and the refund is in the activity log. A refusal by the processor changes nothing and is said in its words.
 */
export async function refundReturn(
  me: AdminCaller,
  payments: PaymentsPort,
  returnId: string,
  { shipping }: { shipping: boolean },
): Promise<ReturnActionResult> {
  const claimed = await me.run((tx) => claim(tx, returnId, shipping));
  if ('ok' in claimed) return claimed;
  let refund: Refund;
  try {
    refund = await payments.refund({
      intentId: claimed.intentId,
      amountCents: claimed.amountCents,
      idempotencyKey: claimed.key,
    });
  } catch (error) {
    // Refused: nothing was made. Silent (no answer): it may have been, so the claim stays and a click asks again.
    if (error instanceof PaymentsError) await me.run((tx) => release(tx, returnId, claimed.key));
    const problem = processorProblem(error);
    return problem.ok ? { ok: false, status: 502, code: 'processor_unavailable', message: 'No answer.' } : problem;
  }
  const outcome = await me.run(async (tx) => {
    await lockReturn(tx, returnId);
    const [before] = await tx.query<{ cents: number }>(`select ${refundedCentsSql('$1::uuid')} as cents`, [claimed.orderId]);
    const inserted = await recordRefund(tx, me, claimed.orderId, refund, claimed.lines);
    const counts = refundCounts(refund.status);
    if (!counts) await release(tx, returnId, claimed.key);
    const [moved] = counts
      ? await tx.query(
          `update public.order_returns set status = 'refunded', refunded_at = now(), refund_id = $2
            where id = $1 and refund_key = $3 and status = 'received' returning id`,
          [returnId, refund.id, claimed.key],
        )
      : [];
    if (moved) await queueReturnMail(tx, { returnId, orderId: claimed.orderId, step: 'refunded' });
    if (inserted) {
      const refundedBefore = before?.cents ?? 0;
      await recordAction(tx, me.admin, {
        action: 'return.refund',
        target: target({ number: claimed.number, order_id: claimed.orderId }),
        before: { refundedCents: refundedBefore },
        after: {
          refundedCents: refundedBefore + (counts ? refund.amountCents : 0),
          refundId: refund.id,
          refundStatus: refund.status,
          shippingCents: claimed.shippingCents,
          ...(moved ? { returnStatus: 'refunded' } : {}),
        },
      });
    }
    return { inserted, moved: Boolean(moved) };
  });
  if (outcome.inserted) refunded('return', claimed.orderId, refund);
  if (!refundCounts(refund.status))
    return {
      ok: false,
      status: 502,
      code: 'refund_failed',
      message: `The payment processor reports the refund as ${refund.status}. Nothing was refunded; you can try again.`,
    };
  return done(
    outcome.moved,
    'refunded',
    outcome.moved
      ? `Refunded ${formatPrice(refund.amountCents)} for ${returnNumber(claimed.number)}.`
      : 'This refund was already recorded.',
  );
}
