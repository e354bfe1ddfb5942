import type { APIRoute } from 'astro';
import { CART_MESSAGES } from '@/features/cart/cart.rules';
import { cartBody, loadCart, saveCart } from '@/features/cart/cart.server';
import { getCatalogueIndex } from '@/features/catalog/catalog.server';
import { json, problem, readJson } from '@/server/http.server';
import { shopper, signInRequired } from '@/server/shopper.server';

export const prerender = false;

/** The signed-in shopper's saved cart: {lines}. Lines the catalogue no longer has are deleted on the way. */
export const GET: APIRoute = async (context) => {
  const { session, run } = await shopper(context);
  if (!session) return signInRequired(CART_MESSAGES.signInToSave);
  const catalogue = await getCatalogueIndex();
  return json({ lines: await run((tx) => loadCart(tx, catalogue)) });
};

/** Replaces the saved cart with {lines: [{productId, quantity, selectedColor, selectedSize}]}: all of it, or nothing (400). */
export const PUT: APIRoute = async (context) => {
  const { session, run } = await shopper(context);
  if (!session) return signInRequired(CART_MESSAGES.signInToSave);
  const body = await readJson(context.request, cartBody);
  if ('response' in body) return body.response;
  const catalogue = await getCatalogueIndex();
  const result = await run((tx) => saveCart(tx, body.data.lines, catalogue));
  if (!result.ok) return problem(400, 'invalid_cart', result.message);
  return json({ lines: result.lines });
};
