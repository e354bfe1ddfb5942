import type { APIRoute } from 'astro';
import { requireShopper } from '@/app/shopper.server';
import { getCatalogueIndex } from '@/features/catalogue/catalogue.server';
import { listOrders, withRefunds } from '@/features/orders/orders.server';
import { json } from '@/server/http.server';

export const prerender = false;

/** The signed-in shopper's order history, newest first: {orders: Order[]}. */
export const GET: APIRoute = async (ctx) => {
  const me = await requireShopper(ctx, 'Please log in to see your orders');
  if (me instanceof Response) return me;
  const catalogue = await getCatalogueIndex();
  return json({ orders: await withRefunds(me.services.db, await me.run((tx) => listOrders(tx, catalogue))) });
};
