import type { APIRoute } from 'astro';
import { shopper } from '@/app/shopper.server';
import { getCatalogueIndex } from '@/features/catalogue/catalogue.server';
import { paymentIntentBody, startCheckout } from '@/features/checkout/start-checkout.server';
import { clientAddress, json, problem, readJson, tooManyRequests } from '@/server/http.server';
import { hit } from '@/server/ratelimit.server';

export const prerender = false;

/**
 * Opens the payment for a checkout (the spec's path; it answers `client_secret`). The body is the cart's lines, the
 * address, the chosen rate's id and optionally a `discountCode`: the server prices all of it, and an `amount` the
 * browser sends is ignored.
 */
export const POST: APIRoute = async (context) => {
  const body = await readJson(context.request, paymentIntentBody);
  if ('response' in body) return body.response;
  const { services, session } = await shopper(context);
  const limited = await hit(
    services.db,
    `checkout:${clientAddress(context, services.config)}`,
    services.config.limits.checkoutsPerAddress,
  );
  if (!limited.ok) return tooManyRequests(limited.retryAfter, 'Too many payment attempts. Please wait a moment and try again.');
  const result = await startCheckout(
    services.db,
    services.payments,
    await getCatalogueIndex(),
    session?.user.id ?? null,
    body.data,
    { clientAddress: clientAddress(context, services.config), addressLimitFactor: services.config.addressLimitFactor },
    session?.user.email ?? null,
  );
  if (!result.ok) {
    // A code that does not exist is a guess, counted as the drawer's are: past the limit the answer no longer says so.
    if (result.reason === 'unknown' || result.reason === 'malformed') {
      const guessed = await hit(
        services.db,
        `discount-guess:${clientAddress(context, services.config)}`,
        services.config.limits.discountGuessesPerAddress,
      );
      if (!guessed.ok)
        return tooManyRequests(guessed.retryAfter, 'Too many discount codes tried. Please wait a few minutes and try again.');
    }
    // out_of_stock: an item cannot be held (the message names it and how many are left); hold_limit: the shopper
    // already holds as many of an item in other checkouts as one shopper may; discount_refused: the code cannot be used
    // (the message says why, in words); either way no payment was opened.
    const code = result.code ?? (result.status === 409 ? 'checkout_changed' : 'invalid_request');
    return problem(result.status, code, result.message);
  }
  return json({
    client_secret: result.clientSecret,
    paymentIntentId: result.paymentIntentId,
    amountCents: result.amountCents,
    totals: result.totals,
    // The code and the offer as the server priced them (each applied discount is a line of its own to show).
    discount: result.discount,
    // Which card form to show: the TEST MODE form, or Stripe's Payment Element with the publishable key.
    processor: services.payments.clientConfig(),
  });
};
