import type { APIRoute } from 'astro';
import { requireShopper } from '@/app/shopper.server';
import { checkoutPrefill } from '@/features/checkout/checkout-prefill.server';
import { json } from '@/server/http.server';

export const prerender = false;

/** The signed-in shopper's name, e-mail and last ship-to address for the checkout form: {name, email, lastAddress}. */
export const GET: APIRoute = async (ctx) => {
  const me = await requireShopper(ctx, 'Please log in to fill in your details');
  if (me instanceof Response) return me;
  return json(await me.run((tx) => checkoutPrefill(tx, me.session.user)));
};
