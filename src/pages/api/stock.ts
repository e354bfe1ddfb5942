import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { getCatalogueIndex } from '@/features/catalogue/catalogue.server';
import { availableStock, stockAnswer } from '@/features/stock/stock.server';
import { asShopper } from '@/server/db/roles.server';
import { json } from '@/server/http.server';

export const prerender = false;

/**
 * What can still be bought of every counted item, and the products that cannot be bought at all: the grid, the
 * product page and the cart read it, since the pages are built once and counts change by the minute. The same for
 * everyone, so it is asked as a guest whoever calls (no session is looked up, and none is kept alive by it):
 * public.stock_available() answers numbers only, nothing about who holds what.
 */
export const GET: APIRoute = async () => {
  const { db } = await getServices();
  const rows = await asShopper(db, null, availableStock);
  return json(stockAnswer(rows, await getCatalogueIndex()));
};
