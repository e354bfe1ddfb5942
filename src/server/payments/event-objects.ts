// What a webhook event's object says, read from the processor's wire shape (Stripe's, which the test processor copies):
// both adapters read events through these, so they agree on what an event is about.
import type { RefundStatus } from './payments.port';

const REFUND_STATUSES: readonly RefundStatus[] = ['pending', 'succeeded', 'failed', 'canceled'];

/**
 * A refund's status in the port's terms: requires_action (one the processor must still complete), or a status added
 * later, is not done yet.
 */
export function refundStatusOf(status: unknown): RefundStatus {
  return REFUND_STATUSES.find((s) => s === status) ?? 'pending';
}

const fieldsOf = (object: unknown) =>
  typeof object === 'object' && object !== null
    ? (object as { object?: unknown; id?: unknown; status?: unknown; payment_intent?: unknown })
    : null;

/** The intent an event's object is, or belongs to (a charge's or refund's payment_intent, an id or expanded). */
export function intentIdOf(object: unknown): string | null {
  const fields = fieldsOf(object);
  if (!fields) return null;
  if (fields.object === 'payment_intent' && typeof fields.id === 'string') return fields.id;
  if (typeof fields.payment_intent === 'string') return fields.payment_intent;
  const nested = fieldsOf(fields.payment_intent)?.id;
  return typeof nested === 'string' ? nested : null;
}

/** The refund an event's object is (`refund.updated`, `refund.failed`), with its status now; null for anything else. */
export function refundOf(object: unknown): { id: string; status: RefundStatus } | null {
  const fields = fieldsOf(object);
  if (fields?.object !== 'refund' || typeof fields.id !== 'string') return null;
  return { id: fields.id, status: refundStatusOf(fields.status) };
}

/** An event's `created` (seconds since 1970, as Stripe sends it) as a time, or null when it is not one. */
export function createdAtOf(created: unknown): Date | null {
  return typeof created === 'number' && Number.isFinite(created) && created > 0 ? new Date(created * 1000) : null;
}
