import type { Database } from '@/server/db/database.server';
import { serviceStatement } from '@/server/db/roles.server';
import { logger } from '@/server/log.server';
import { type PaymentsPort, WebhookSignatureError } from '@/server/payments/payments.port';
import { releaseDiscountHolds } from '../discounts/discounts.server';
import { refundCountsSql } from '../orders/refunds.server';
import { releaseHolds } from '../stock/stock.server';
import { recordOrder } from './order.server';

const log = logger('checkout');

/**
 * Lets go of what the checkout of a failed, declined or canceled payment (3-D Secure abandoned included) held: its
 * stock and its code's use, so another shopper may have them. Only what was held before `failedAt` (a hold taken since,
 * for another attempt, stays), and nothing once the order is recorded.
 */
export async function releasePayment(db: Database, paymentIntentId: string, failedAt: Date | null = null): Promise<void> {
  await Promise.all([releaseHolds(db, paymentIntentId, failedAt), releaseDiscountHolds(db, paymentIntentId, failedAt)]);
}

export type WebhookResult = { status: 200; body: { received: true; duplicate?: true } } | { status: 400 | 500; message: string };

/**
 * The payment processor's webhook (Stripe's `payment_intent.succeeded`, `payment_intent.payment_failed` and
 * `payment_intent.canceled`, and a refund's `refund.updated` or `refund.failed`): the signature is checked on the raw body, and a succeeded payment records its order through the
 * same `recordOrder` as the confirming request, whichever comes first. An event is recorded by id once handled, so a
 * replay is acknowledged and changes nothing; an event that could not be handled answers 500, so the processor sends
 * it again.
 */
export async function handlePaymentEvent(
  db: Database,
  payments: PaymentsPort,
  rawBody: string,
  signature: string | null,
  options: { onQueued?: () => void } = {},
): Promise<WebhookResult> {
  let event: ReturnType<PaymentsPort['parseWebhook']>;
  try {
    event = payments.parseWebhook(rawBody, signature);
  } catch (error) {
    if (error instanceof WebhookSignatureError) return { status: 400, message: error.message };
    throw error;
  }
  const [seen] = await serviceStatement(db, `select 1 from public.processed_webhook_events where event_id = $1`, [event.id]);
  if (seen) return { status: 200, body: { received: true, duplicate: true } };

  // A declined card or a canceled payment lets go of what its checkout held, so another shopper may buy it; a hold
  // taken after the failure (the shopper paying again) stays. The next attempt holds again before the card is charged.
  if ((event.type === 'payment_intent.payment_failed' || event.type === 'payment_intent.canceled') && event.intentId) {
    await releasePayment(db, event.intentId, event.createdAt);
  }
  if (event.type === 'payment_intent.succeeded' && event.intentId) {
    const result = await recordOrder(db, payments, event.intentId, options.onQueued ? { onQueued: options.onQueued } : {});
    // A payment that is not one of our checkouts is acknowledged and ignored; anything else is retried.
    if (!result.ok && result.status !== 404) {
      log.warn({ eventId: event.id, paymentIntentId: event.intentId, reason: result.message }, 'webhook: no order recorded yet');
      return { status: 500, message: result.message };
    }
  }
  // A refund the admin made can fail days later (the card closed, the bank returned it): it then no longer counts as
  // refunded, so the order shows what was really given back and can be refunded again. Only a settled status is
  // taken, and only over one that counts: an older event still saying pending, arriving late, changes nothing.
  if (event.refund && event.refund.status !== 'pending') {
    const [changed] = await serviceStatement<{ order_id: string }>(
      db,
      `update public.order_refunds set status = $2
        where refund_id = $1 and ${refundCountsSql('status')} and status <> $2
        returning order_id::text`,
      [event.refund.id, event.refund.status],
    );
    if (changed && event.refund.status !== 'succeeded') {
      log.warn(
        { refundId: event.refund.id, orderId: changed.order_id, refundStatus: event.refund.status },
        'a refund failed at the processor after it was made',
      );
    }
  }
  await serviceStatement(db, `insert into public.processed_webhook_events (event_id) values ($1) on conflict do nothing`, [
    event.id,
  ]);
  return { status: 200, body: { received: true } };
}

/**
 * Finds payments that succeeded but have no order (the server stopped between the payment and the order, and no
 * webhook came), and records them. Checkouts younger than `graceMinutes` are left to the confirming request; those
 * untouched for two hours are abandoned carts, left to the processor's webhook retries (days), so each checkout is
 * asked about a bounded number of times. Returns the orders it recorded.
 */
export async function reconcilePayments(
  db: Database,
  payments: PaymentsPort,
  { graceMinutes = 15, onQueued }: { graceMinutes?: number; onQueued?: () => void } = {},
): Promise<string[]> {
  const open = await serviceStatement<{ payment_intent_id: string }>(
    db,
    `select payment_intent_id from public.checkouts
       where order_id is null and payment_intent_id is not null
         and updated_at < now() - make_interval(mins => $1) and updated_at > now() - interval '2 hours'
         -- An exchange's replacement has no payment to ask about: its return's owner sends it (replacement.server.ts).
         and content_hash not like 'replacement:%'
       order by updated_at limit 100`,
    [graceMinutes],
  );
  const recorded: string[] = [];
  for (const { payment_intent_id: intentId } of open) {
    try {
      const result = await recordOrder(db, payments, intentId, onQueued ? { onQueued } : {});
      if (result.ok && result.order.created) {
        recorded.push(result.order.id);
        log.warn(
          { orderId: result.order.id, paymentIntentId: intentId },
          'reconciliation recorded an order for a payment that had none',
        );
      }
    } catch (error) {
      log.warn({ paymentIntentId: intentId, err: error }, 'reconciliation could not check a payment');
    }
  }
  return recorded;
}
