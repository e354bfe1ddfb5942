import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { addressSuggestions } from '@/features/checkout/address-suggestions.server';
import { clientAddress } from '@/server/http.server';

export const prerender = false;

/**
 * Address suggestions for the checkout's street field: {enabled, suggestions} with up to 5 US addresses, through the
 * shop's suggestion service (its key stays here), or {enabled: false} when there is none.
 */
export const GET: APIRoute = async (context) => {
  const { db, address, config } = await getServices();
  return addressSuggestions({ db, address, limits: config.limits }, context.request, clientAddress(context, config));
};
