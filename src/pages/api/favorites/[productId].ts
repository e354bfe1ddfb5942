import type { APIRoute } from 'astro';
import { requireShopper } from '@/app/shopper.server';
import { removeFavorite } from '@/features/favorites/favorites.server';
import { LOGIN_TO_MANAGE } from '@/features/favorites/wishlist';
import { json } from '@/server/http.server';
import { productIdInPath } from '@/server/product-id.server';

export const prerender = false;

/**
 * Removes one product from the signed-in shopper's favorites: {removed: true}, or {removed: false} when it was not
 * there (already removed in another tab). Products that have left the catalogue can be removed too.
 */
export const DELETE: APIRoute = async (ctx) => {
  const me = await requireShopper(ctx, LOGIN_TO_MANAGE);
  if (me instanceof Response) return me;
  const id = productIdInPath(ctx.params.productId);
  if (id instanceof Response) return id;
  return json({ removed: await me.run((tx) => removeFavorite(tx, id)) });
};
