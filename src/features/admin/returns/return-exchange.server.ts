// An exchange's replacement, sent once the items it takes back are received (decision 011): a $0 order for the same
// products in the colours and sizes the shopper chose, through the checkout's own path (placeReplacement: held like
// any checkout, sold and recorded once, keyed by the return). Then, under the return's row lock, the return moves to
// exchanged by compare-and-set, with its e-mail and admin action: any number of clicks, on any server, send one.
import type { CatalogueIndex } from '@/features/catalogue/catalogue';
import { type CheckoutRate, placeReplacement } from '@/features/checkout/replacement.server';
import { orderNumber } from '@/features/orders/orders';
import { returnNumber } from '@/features/returns/returns';
import { queueReturnMail } from '@/features/returns/returns.server';
import type { Database } from '@/server/db/database.server';
import { jsonColumn } from '@/server/db/database.server';
import type { Address } from '@/server/shipping/shipping.port';
import { type AdminCaller, recordAction } from '../admin.server';
import { done, lockReturn, NO_SUCH_RETURN, type ReturnActionResult, settled, target } from './return-rows.server';

/** What sending a replacement reads of the return's order: where it went, how, and the lines to send instead. */
interface OrderOfReturn {
  user_id: string | null;
  shipping_address: string | Address;
  shipping_method: string | CheckoutRate;
  kind: string;
  /** Another click is sending it (claimed in the last minutes) and has not opened its checkout yet. */
  in_flight: boolean;
  lines: string | { itemId: string; productId: number; quantity: number; color: string; size: string }[];
}

/** Sends the replacement of a received exchange, once; refused in words when it is no exchange or its items are gone. */
export async function exchangeReturn(
  me: AdminCaller,
  db: Database,
  catalogue: CatalogueIndex,
  returnId: string,
): Promise<ReturnActionResult> {
  type Ready = { r: NonNullable<Awaited<ReturnType<typeof lockReturn>>>; order: OrderOfReturn };
  const ready = await me.run(async (tx): Promise<Ready | ReturnActionResult> => {
    const r = await lockReturn(tx, returnId);
    if (!r) return NO_SUCH_RETURN;
    const refused = settled('exchange', r, 'exchanged');
    if (refused) return refused;
    if (r.refund_key)
      return {
        ok: false,
        status: 409,
        code: 'refund_under_way',
        message: 'A refund of this return is under way: no replacement is sent as well.',
      };
    const [order] = await tx.query<OrderOfReturn>(
      `select o.user_id, o.shipping_address, o.shipping_method, x.kind,
              coalesce(x.replacement_claimed_at > now() - interval '3 minutes', false)
                and not exists (select 1 from public.checkouts c where c.payment_intent_id = 'replacement_' || x.id)
                as in_flight,
              (select json_agg(json_build_object('itemId', e ->> 'itemId', 'productId', i.product_id,
                        'quantity', (e ->> 'quantity')::int, 'color', e -> 'exchangeFor' ->> 'color',
                        'size', e -> 'exchangeFor' ->> 'size'))
                 from jsonb_array_elements(x.items) e
                 join public.order_items i on i.id = (e ->> 'itemId')::bigint and i.order_id = x.order_id) as lines
         from public.order_returns x join public.orders o on o.id = x.order_id where x.id = $1`,
      [r.id],
    );
    if (order?.kind !== 'exchange')
      return { ok: false, status: 409, code: 'not_an_exchange', message: 'This return asks for a refund, not an exchange.' };
    // Another click is opening the replacement's checkout: this one waits for it rather than holding stock twice.
    if (order.in_flight) return done(false, r.status, 'The replacement is being sent: reload the page in a moment.');
    await tx.query('update public.order_returns set replacement_claimed_at = now() where id = $1', [r.id]);
    return { r, order };
  });
  if ('ok' in ready) return ready;
  const { r, order } = ready;
  const address = jsonColumn<Address & { address?: string; zipCode?: string }>(order.shipping_address);
  const placed = await placeReplacement(db, catalogue, {
    returnId: r.id,
    userId: order.user_id,
    address: { ...address, street1: address.street1 ?? address.address ?? '', zip: address.zip ?? address.zipCode ?? '' },
    rate: jsonColumn<CheckoutRate>(order.shipping_method),
    lines: jsonColumn(order.lines).map((l) => ({
      productId: l.productId,
      quantity: l.quantity,
      selectedColor: l.color || null,
      selectedSize: l.size || null,
    })),
  });
  if (!placed.ok) {
    await me.run((tx) => tx.query('update public.order_returns set replacement_claimed_at = null where id = $1', [r.id]));
    return { ok: false, status: 409, code: 'replacement_refused', message: placed.message };
  }
  return me.run(async (tx) => {
    await lockReturn(tx, r.id);
    const [moved] = await tx.query(
      `update public.order_returns set status = 'exchanged', exchanged_at = now(), replacement_order_id = $2
        where id = $1 and status = 'received' returning id`,
      [r.id, placed.orderId],
    );
    if (!moved) return done(false, 'exchanged', 'The replacement was sent already.');
    await queueReturnMail(tx, { returnId: r.id, orderId: r.order_id, step: 'exchanged' });
    await recordAction(tx, me.admin, {
      action: 'return.exchange',
      target: target(r),
      before: { returnStatus: r.status },
      after: { returnStatus: 'exchanged', replacement: orderNumber(placed.orderId) },
    });
    return done(
      true,
      'exchanged',
      `The replacement for ${returnNumber(r.number)} is order ${orderNumber(placed.orderId)}: its label and e-mails are on their way.`,
    );
  });
}
