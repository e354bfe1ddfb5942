import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { getCatalogueIndex } from '@/features/catalogue/catalogue.server';
import { quoteRates, ratesBody, wireRate } from '@/features/checkout/rates.server';
import { clientAddress, json, problem, readJson, tooManyRequests } from '@/server/http.server';
import { hit } from '@/server/ratelimit.server';

export const prerender = false;

/**
 * Shipping rates for the cart to an address (the spec's path and body, plus the cart's lines): {rates: [...]}, first
 * one to preselect. Every rate is remembered on the server, which is where the payment step takes its amount from.
 * A carrier failure is a 502 whose message the checkout shows after 'Shipping calculation failed: '.
 */
export const POST: APIRoute = async (context) => {
  const body = await readJson(context.request, ratesBody);
  if ('response' in body) return body.response;
  const { db, shipping, config } = await getServices();
  const limited = await hit(db, `rates:${clientAddress(context, config)}`, config.limits.shippingRatesPerAddress);
  if (!limited.ok) return tooManyRequests(limited.retryAfter, 'Too many shipping requests. Please wait a moment and try again.');
  const result = await quoteRates(db, shipping, await getCatalogueIndex(), body.data);
  if (!result.ok) return problem(result.status, result.status === 400 ? 'invalid_request' : 'shipping_failed', result.message);
  return json({ rates: result.rates.map(wireRate) });
};
