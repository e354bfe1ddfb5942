// A return as the owner's actions read it, locked, and what their answers share (decision 011).

import { orderNumber } from '@/features/orders/orders';
import type { PricedLineRefund } from '@/features/orders/refund-lines';
import { refundedCentsSql } from '@/features/orders/refunds.server';
import { type ReturnStatus, returnNumber } from '@/features/returns/returns';
import type { ReturnItem } from '@/features/returns/returns.server';
import { jsonColumn, type Sql } from '@/server/db/database.server';
import { lineRefundFor } from '../orders/refund-lines.server';
import { type ReturnAction, returnActionProblem } from './returns-admin';

/** What the return actions answer (the island reads it). */
export interface ReturnActionAnswer {
  /** False when the request found the work already done (a double click): nothing changed, nothing was recorded. */
  changed: boolean;
  status: ReturnStatus;
  message: string;
}

export type ReturnActionResult =
  | { ok: true; answer: ReturnActionAnswer }
  | { ok: false; status: 400 | 404 | 409 | 502; code: string; message: string };

export const NO_SUCH_RETURN = { ok: false, status: 404, code: 'not_found', message: 'No such return.' } as const;

export interface LockedReturn {
  id: string;
  number: string;
  order_id: string;
  status: ReturnStatus;
  items: string | ReturnItem[];
  refund_key: string | null;
  refund_amount_cents: number | null;
  refund_shipping_cents: number;
  refund_attempts: number;
  refund_lines: string | PricedLineRefund['items'] | null;
  /** An exchange whose replacement a click is sending (claimed recently), or sent: no refund on top of it. */
  replacing: boolean;
}

/** The return, locked until the caller's transaction ends: a second click waits, then reads what the first left. */
export async function lockReturn(tx: Sql, returnId: string): Promise<LockedReturn | null> {
  const [row] = await tx.query<LockedReturn>(
    `select id, number::text as number, order_id, status, items, refund_key, refund_amount_cents, refund_shipping_cents,
            refund_attempts, refund_lines,
            replacement_order_id is not null
              or replacement_claimed_at > now() - interval '3 minutes'
              or exists (select 1 from public.checkouts c where c.payment_intent_id = 'replacement_' || id::text) as replacing
       from public.order_returns where id = $1 for update`,
    [returnId],
  );
  return row ?? null;
}

/** What an action refers to in the activity log: the return and its order (so the order's actions list it too). */
export const target = (r: Pick<LockedReturn, 'number' | 'order_id'>) =>
  `${returnNumber(r.number)} for ${orderNumber(r.order_id)} (order ${r.order_id})`;

export const done = (changed: boolean, status: ReturnStatus, message: string): ReturnActionResult => ({
  ok: true,
  answer: { changed, status, message },
});

/** The answer when `action` finds the return past it: done already (a double click), or refused in words (409). */
export function settled(action: ReturnAction, r: LockedReturn, doneStatus: ReturnStatus): ReturnActionResult | null {
  const problem = returnActionProblem(action, r.status);
  if (!problem) return null;
  if (r.status === doneStatus) return done(false, r.status, problem);
  return { ok: false, status: 409, code: 'invalid_transition', message: problem };
}

/** What a return's refund would be, for its page: the lines, the shipping left to give back, and what is left. */
export interface RefundProposal {
  linesCents: number;
  goodsCents: number;
  taxCents: number;
  shippingLeftCents: number;
  leftCents: number;
  /** Why the lines cannot be refunded (refunded already by line, say), or null. */
  problem: string | null;
}

/** Prices the return's lines as any refund of lines is priced, and what the order has left (shipping, money). */
export async function proposal(
  tx: Sql,
  r: Pick<LockedReturn, 'id' | 'order_id' | 'items'>,
): Promise<RefundProposal & { priced: PricedLineRefund | null }> {
  const priced = await lineRefundFor(
    tx,
    r.order_id,
    jsonColumn(r.items).map((i) => ({ itemId: i.itemId, quantity: i.quantity })),
  );
  const [money] = await tx.query<{ left: number; shipping_left: number }>(
    // Less what other returns of the order have claimed and not yet recorded: two refunds at once never pass it.
    `select o.total_cents - ${refundedCentsSql('o.id')}
              - (select coalesce(sum(x.refund_amount_cents), 0)::int from public.order_returns x
                  where x.order_id = o.id and x.refund_key is not null and x.refund_id is null and x.id <> $2) as left,
            o.shipping_cents - (select coalesce(sum(x.refund_shipping_cents), 0)::int from public.order_returns x
                                 where x.order_id = o.id and x.refund_key is not null and x.id <> $2) as shipping_left
       from public.orders o where o.id = $1`,
    [r.order_id, r.id],
  );
  const ok = priced && !('problem' in priced) ? priced : null;
  return {
    priced: ok,
    linesCents: ok?.amountCents ?? 0,
    goodsCents: ok?.goodsCents ?? 0,
    taxCents: ok?.taxCents ?? 0,
    shippingLeftCents: Math.max(0, money?.shipping_left ?? 0),
    leftCents: Math.max(0, money?.left ?? 0),
    problem: priced && 'problem' in priced ? priced.problem : priced ? null : 'No such order.',
  };
}

/** The refund the return's page proposes (nothing is claimed or changed). */
export async function refundProposal(tx: Sql, returnId: string): Promise<RefundProposal | null> {
  const [r] = await tx.query<Pick<LockedReturn, 'id' | 'order_id' | 'items'>>(
    'select id, order_id, items from public.order_returns where id = $1',
    [returnId],
  );
  if (!r) return null;
  const { priced: _, ...shown } = await proposal(tx, r);
  return shown;
}
