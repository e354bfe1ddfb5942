import type { APIRoute } from 'astro';
import { removeFavorite } from '@/features/favorites/favorites.server';
import { LOGIN_TO_MANAGE } from '@/features/favorites/wishlist';
import { json, problem } from '@/server/http.server';
import { productIdParam } from '@/server/product-id.server';
import { shopper, signInRequired } from '@/server/shopper.server';

export const prerender = false;

/**
 * Removes one product from the signed-in shopper's favorites: {removed: true}, or {removed: false} when it was not
 * there (already removed in another tab). Products that have left the catalogue can be removed too.
 */
export const DELETE: APIRoute = async (ctx) => {
  const me = await shopper(ctx);
  if (!me.session) return signInRequired(LOGIN_TO_MANAGE);
  const id = productIdParam.safeParse(ctx.params.productId);
  if (!id.success) return problem(400, 'invalid_request', id.error.issues[0]?.message ?? 'Invalid product id.');
  return json({ removed: await me.run((tx) => removeFavorite(tx, id.data)) });
};
