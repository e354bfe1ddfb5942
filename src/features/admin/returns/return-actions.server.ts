// What the owner does to a return (decision 011): approve it (its label is bought by the outbox), decline it with a
// reason, mark its lines received with their condition (resellable ones go back in stock), and refund it. Each runs
// as service_role through the admin's `run`, under the return's row lock, and records its admin_actions row and
// queues the shopper's e-mail in the same transaction, only when something changed: a double click changes nothing.

import { returnNumber } from '@/features/returns/returns';
import { confirmationToken, queueReturnMail } from '@/features/returns/returns.server';
import { describeItems, keyOf, restockItems } from '@/features/stock/stock.server';
import { jsonColumn } from '@/server/db/database.server';
import { queueJob } from '@/server/outbox/jobs.server';
import { type AdminCaller, recordAction } from '../admin.server';
import { done, lockReturn, NO_SUCH_RETURN, type ReturnActionResult, settled, target } from './return-rows.server';

/**
 * Approves a requested return: the shopper is sent a return label, bought by the outbox ('return-label', once per
 * return), whose job then queues the approval e-mail with it.
 */
export async function approveReturn(me: AdminCaller, returnId: string): Promise<ReturnActionResult> {
  return me.run(async (tx) => {
    const r = await lockReturn(tx, returnId);
    if (!r) return NO_SUCH_RETURN;
    const refused = settled('approve', r, 'approved');
    if (refused) return refused;
    await tx.query(`update public.order_returns set status = 'approved', approved_at = now() where id = $1`, [r.id]);
    const token = await confirmationToken(tx, r.order_id);
    await queueJob(tx, 'return-label', { returnId: r.id, ...(token ? { accessToken: token } : {}) }, `return-label:${r.id}`);
    await recordAction(tx, me.admin, {
      action: 'return.approve',
      target: target(r),
      before: { returnStatus: r.status },
      after: { returnStatus: 'approved' },
    });
    return done(true, 'approved', `${returnNumber(r.number)} is approved: the customer is e-mailed a return label.`);
  });
}

/** Declines a return that is requested or approved (not yet received), with the reason the shopper is e-mailed. */
export async function declineReturn(me: AdminCaller, returnId: string, reason: string): Promise<ReturnActionResult> {
  return me.run(async (tx) => {
    const r = await lockReturn(tx, returnId);
    if (!r) return NO_SUCH_RETURN;
    const refused = settled('decline', r, 'declined');
    if (refused) return refused;
    await tx.query(
      `update public.order_returns set status = 'declined', declined_at = now(), decline_reason = $2 where id = $1`,
      [r.id, reason],
    );
    await queueReturnMail(tx, { returnId: r.id, orderId: r.order_id, step: 'declined' });
    await recordAction(tx, me.admin, {
      action: 'return.decline',
      target: target(r),
      before: { returnStatus: r.status },
      after: { returnStatus: 'declined', declineReason: reason },
    });
    return done(true, 'declined', `${returnNumber(r.number)} is declined: the customer is e-mailed your reason.`);
  });
}

/** A line of a return the owner marks received, and how it came back. */
export interface Received {
  itemId: string;
  condition: 'resellable' | 'damaged';
}

/**
 * Marks lines of an approved return received, each with its condition, once each: resellable units go back on the
 * stock counts (restockItems: never more than the order took), damaged ones do not. Once every line is in, the return
 * is received and the shopper is e-mailed. Lines received before are left as they were.
 */
export async function receiveReturn(
  me: AdminCaller,
  returnId: string,
  received: readonly Received[],
): Promise<ReturnActionResult> {
  return me.run(async (tx) => {
    const r = await lockReturn(tx, returnId);
    if (!r) return NO_SUCH_RETURN;
    const refused = settled('receive', r, 'received');
    if (refused) return refused;
    const items = jsonColumn(r.items);
    const unknown = received.find((x) => !items.some((i) => i.itemId === x.itemId));
    if (unknown)
      return { ok: false, status: 400, code: 'invalid_items', message: 'One of the lines is not part of this return.' };
    const now = new Date().toISOString();
    const fresh = received.filter((x) => items.find((i) => i.itemId === x.itemId)?.receivedAt === null);
    if (fresh.length === 0) return done(false, r.status, 'These lines were received already.');
    const next = items.map((i) => {
      const got = fresh.find((x) => x.itemId === i.itemId);
      return got ? { ...i, condition: got.condition, receivedAt: now } : i;
    });
    const lines = await tx.query<{
      id: string;
      product_id: number;
      selected_color: string | null;
      selected_size: string | null;
      product_name: string;
    }>(`select id::text, product_id, selected_color, selected_size, product_name from public.order_items where order_id = $1`, [
      r.order_id,
    ]);
    const lineOf = (itemId: string) => lines.find((l) => l.id === itemId);
    const resellable = fresh.filter((x) => x.condition === 'resellable');
    const back = await restockItems(
      tx,
      r.order_id,
      resellable.flatMap((x) => {
        const line = lineOf(x.itemId);
        const quantity = items.find((i) => i.itemId === x.itemId)?.quantity ?? 0;
        return line
          ? [
              {
                ...keyOf({ productId: line.product_id, selectedColor: line.selected_color, selectedSize: line.selected_size }),
                quantity,
              },
            ]
          : [];
      }),
    );
    const all = next.every((i) => i.receivedAt !== null);
    await tx.query(
      `update public.order_returns set items = $2::text::jsonb,
              status = case when $3::boolean then 'received' else status end,
              received_at = case when $3::boolean then now() else received_at end
        where id = $1`,
      [r.id, JSON.stringify(next), all],
    );
    if (all) await queueReturnMail(tx, { returnId: r.id, orderId: r.order_id, step: 'received' });
    const words = fresh
      .map(
        (x) =>
          `${items.find((i) => i.itemId === x.itemId)?.quantity ?? 0} × ${lineOf(x.itemId)?.product_name ?? 'an item'} (${x.condition})`,
      )
      .join(', ');
    await recordAction(tx, me.admin, {
      action: 'return.receive',
      target: target(r),
      before: { returnStatus: r.status },
      after: {
        returnStatus: all ? 'received' : r.status,
        received: words,
        ...(back.length > 0 ? { restocked: describeItems(back) } : {}),
      },
    });
    const stock = back.length > 0 ? ` ${describeItems(back)} back in stock.` : '';
    return done(true, all ? 'received' : r.status, `Received: ${words}.${stock}`);
  });
}
