import type { APIRoute } from 'astro';
import { z } from 'astro/zod';
import { shopper } from '@/app/shopper.server';
import { orderLinkForPayer, recordOrder } from '@/features/checkout/order.server';
import { orderNumber } from '@/features/orders/orders';
import { json, problem, readJson } from '@/server/http.server';

export const prerender = false;

const body = z.object({
  paymentIntentId: z.string({ error: 'paymentIntentId is required.' }).min(1).max(200),
  /** The payment's client secret, which only the paying browser holds: it is then given a link to the order's page. */
  clientSecret: z.string().max(300).optional(),
});

/**
 * Records the order once the card form says the payment went through. The server asks the processor itself; the
 * browser's word counts for nothing. Calling it again (a retry, a double click) answers the same order. With the
 * payment's client secret the answer links to the order's page (orderLinkForPayer).
 */
export const POST: APIRoute = async (context) => {
  const parsed = await readJson(context.request, body);
  if ('response' in parsed) return parsed.response;
  const { services, session } = await shopper(context);
  const result = await recordOrder(services.db, services.payments, parsed.data.paymentIntentId, {
    userId: session?.user.id ?? null,
    onQueued: services.nudgeOutbox,
  });
  if (!result.ok) return problem(result.status, 'order_not_recorded', result.message);
  // Paid after the items sold out: no order was placed, and the payment is being refunded (the message says so).
  if (result.order.soldOut) return problem(409, 'sold_out', result.order.soldOut);
  const { id } = result.order;
  const { paymentIntentId, clientSecret } = parsed.data;
  const url = clientSecret
    ? await orderLinkForPayer(services.db, services.payments, { orderId: id, paymentIntentId, clientSecret })
    : null;
  // The order as every later place names it (ORD-…), and, for the paying browser, a link to its page.
  return json({ order: { id, number: orderNumber(id), url } }, result.order.created ? 201 : 200);
};
