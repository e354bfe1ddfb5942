// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import type { RefundStatus } from '@/server/payments/payments.port';

// One rule for what was given back, used by every total of refunds (the shopper's pages and e-mails, the admin): a
// refund counts while it is pending at the processor and once it has succeeded; one that failed or was canceled gave
// nothing back.

const COUNTED: readonly RefundStatus[] = ['pending', 'succeeded'];

/** Whether a refund in this state counts as given back (a stored status is a string: one we do not know does not). */
export const refundCounts = (status: RefundStatus | string): boolean => (COUNTED as readonly string[]).includes(status);

/** SQL: whether the refund whose status is in `column` counts. */
export const refundCountsSql = (column: string): string => `${column} in (${COUNTED.map((s) => `'${s}'`).join(', ')})`;

/** SQL: what has been given back of the order whose id is the SQL expression `orderId`, in cents. */
export const refundedCentsSql = (orderId: string): string =>
  `(select coalesce(sum(r.amount_cents), 0)::int from public.order_refunds r
     where r.order_id = ${orderId} and ${refundCountsSql('r.status')})`;
