import type { APIRoute } from 'astro';
import { requireShopper } from '@/app/shopper.server';
import { CART_MESSAGES } from '@/features/cart/cart.rules';
import { cartBody, loadCart, storeCart } from '@/features/cart/cart.server';
import { getCatalogueIndex } from '@/features/catalogue/catalogue.server';
import { json, problem, readJson } from '@/server/http.server';

export const prerender = false;

/** The signed-in shopper's saved cart: {lines}. Lines the catalogue no longer sells (gone, out of stock) are deleted on the way. */
export const GET: APIRoute = async (context) => {
  const me = await requireShopper(context, CART_MESSAGES.signInToSave);
  if (me instanceof Response) return me;
  const catalogue = await getCatalogueIndex();
  return json({ lines: await me.run((tx) => loadCart(tx, catalogue)) });
};

/** Replaces the saved cart with {lines: [{productId, quantity, selectedColor, selectedSize}]}: all of it, or nothing (400, e.g. 'Line 1: Rose Oil is out of stock.'). */
export const PUT: APIRoute = async (context) => {
  const me = await requireShopper(context, CART_MESSAGES.signInToSave);
  if (me instanceof Response) return me;
  const body = await readJson(context.request, cartBody);
  if ('response' in body) return body.response;
  const saved = await storeCart(me.services.db, me.session.claims, body.data.lines, await getCatalogueIndex());
  if (!saved.ok) return problem(400, 'invalid_cart', saved.message);
  return json({ lines: saved.lines });
};
