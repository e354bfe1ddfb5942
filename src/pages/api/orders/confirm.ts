import type { APIRoute } from 'astro';
import { z } from 'astro/zod';
import { recordOrder } from '@/features/checkout/order.server';
import { json, problem, readJson } from '@/server/http.server';
import { shopper } from '@/server/shopper.server';

export const prerender = false;

const body = z.object({ paymentIntentId: z.string({ error: 'paymentIntentId is required.' }).min(1).max(200) });

/**
 * Records the order once the card form says the payment went through. The server asks the processor itself; the
 * browser's word counts for nothing. Calling it again (a retry, a double click) answers the same order.
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
  return json({ order: { id: result.order.id } }, result.order.created ? 201 : 200);
};
