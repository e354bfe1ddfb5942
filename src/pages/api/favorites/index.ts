import type { APIRoute } from 'astro';
import { z } from 'astro/zod';
import { requireShopper } from '@/app/shopper.server';
import { getCatalogueIndex } from '@/features/catalogue/catalogue.server';
import { ALREADY_FAVORITE, LOGIN_TO_SAVE } from '@/features/favorites/favorites';
import { addFavorite, clearFavorites, listFavorites } from '@/features/favorites/favorites.server';
import { LOGIN_TO_MANAGE } from '@/features/favorites/wishlist';
import { json, problem, readJson } from '@/server/http.server';
import { productIdValue } from '@/server/product-id.server';

export const prerender = false;

/** Only the product id: name, picture, price and category come from the catalogue, whatever else is sent. */
const addBody = z.object({ productId: productIdValue() }, { error: 'Send {"productId": <a product id>}.' });

/** The signed-in shopper's favorites, newest first: {favorites: Favorite[]}. */
export const GET: APIRoute = async (ctx) => {
  const me = await requireShopper(ctx, LOGIN_TO_MANAGE);
  if (me instanceof Response) return me;
  const catalogue = await getCatalogueIndex();
  return json({ favorites: await me.run((tx) => listFavorites(tx, catalogue)) });
};

/** Saves a product as a favorite: 201 {favorite}, 404 for an unknown product, 409 when it is already saved. */
export const POST: APIRoute = async (ctx) => {
  const me = await requireShopper(ctx, LOGIN_TO_SAVE);
  if (me instanceof Response) return me;
  const body = await readJson(ctx.request, addBody);
  if ('response' in body) return body.response;
  const result = await addFavorite(me.run, await getCatalogueIndex(), body.data.productId);
  if (result.ok) return json({ favorite: result.value }, 201);
  return result.reason === 'duplicate'
    ? problem(409, 'duplicate', ALREADY_FAVORITE)
    : problem(404, 'not_found', 'There is no such product.');
};

/** Clears the signed-in shopper's favorites (nobody else's): {removed: count}. */
export const DELETE: APIRoute = async (ctx) => {
  const me = await requireShopper(ctx, LOGIN_TO_MANAGE);
  if (me instanceof Response) return me;
  return json({ removed: await me.run((tx) => clearFavorites(tx)) });
};
