import type { APIRoute } from 'astro';
import { shopper } from '@/app/shopper.server';
import { getCatalogueIndex } from '@/features/catalogue/catalogue.server';
import { likesSummary } from '@/features/likes/likes.server';
import { json } from '@/server/http.server';

export const prerender = false;

/** Shoppers' likes of every product (guests too: counts are public), and which ones this shopper likes. */
export const GET: APIRoute = async (ctx) => {
  const me = await shopper(ctx);
  const ids = [...(await getCatalogueIndex()).keys()];
  return json(await me.run((tx) => likesSummary(tx, ids, me.session !== null)));
};
