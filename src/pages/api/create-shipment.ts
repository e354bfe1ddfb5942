import type { APIRoute } from 'astro';
import { z } from 'astro/zod';
import { requireShopper } from '@/app/shopper.server';
import { createShipment } from '@/features/checkout/fulfilment.server';
import { json, problem, readJson } from '@/server/http.server';

export const prerender = false;

/**
 * The shipping label of a paid order (the spec's path and answer: success, error, tracking_number, tracking_url,
 * label_url), for the order's owner. Addresses, rates and amounts in the body are ignored: the order has them. A
 * second call returns the first label; it is never bought twice.
 */
const body = z.object({ orderId: z.uuid({ error: 'orderId must be an order id.' }) });

export const POST: APIRoute = async (context) => {
  const parsed = await readJson(context.request, body);
  if ('response' in parsed) return parsed.response;
  const me = await requireShopper(context, 'Please log in to see your orders.');
  if (me instanceof Response) return me;
  // Row-level security decides whether the order is theirs.
  const [mine] = await me.run((tx) => tx.query(`select id from public.orders where id = $1`, [parsed.data.orderId]));
  if (!mine) return problem(404, 'not_found', 'No such order.');
  const { db, shipping, config } = me.services;
  const answer = await createShipment({ db, shipping, publicOrigin: config.publicOrigin }, parsed.data.orderId);
  return json(answer, answer.success ? 200 : 409);
};
