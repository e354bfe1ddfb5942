import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { shopper } from '@/app/shopper.server';
import { getCatalogueIndex } from '@/features/catalogue/catalogue.server';
import { checkDiscount, discountCheckBody } from '@/features/checkout/discount-check.server';
import { ownOpenCheckout } from '@/features/checkout/start-checkout.server';
import { shopperRule } from '@/features/discounts/discounts';
import { loadOffer } from '@/features/discounts/discounts.server';
import { asService } from '@/server/db/roles.server';
import { clientAddress, json, problem, readJson, tooManyRequests } from '@/server/http.server';
import { hitAll, refund } from '@/server/ratelimit.server';

export const prerender = false;

/**
 * The cart drawer checks a discount code: `{discountCode, lines, email?, previousClientSecret?}` answers the code's and the offer's effect
 * on those lines (per cart id) and the rule sentence, or 409/400 `discount_refused` saying why in words. Limited per
 * client address twice: checks in all, and codes that do not exist (guesses), whose hit a real code takes back.
 */
export const POST: APIRoute = async (context) => {
  const { services, session } = await shopper(context);
  const address = clientAddress(context, services.config);
  const guesses = `discount-guess:${address}`;
  const limited = await hitAll(services.db, [
    [`discount:${address}`, services.config.limits.discountChecksPerAddress],
    [guesses, services.config.limits.discountGuessesPerAddress],
  ]);
  if (!limited.ok)
    return tooManyRequests(limited.retryAfter, 'Too many discount codes tried. Please wait a few minutes and try again.');
  const body = await readJson(context.request, discountCheckBody);
  if ('response' in body) return body.response;
  const userId = session?.user.id ?? null;
  const { previousClientSecret } = body.data;
  const result = await checkDiscount(services.db, await getCatalogueIndex(), body.data, {
    userId,
    accountEmail: session?.user.email ?? null,
    ownCheckout: previousClientSecret
      ? await ownOpenCheckout(services.db, services.payments, previousClientSecret, userId)
      : null,
  });
  if (result.ok || (result.reason && result.reason !== 'unknown' && result.reason !== 'malformed'))
    await asService(services.db, (tx) => refund(tx, guesses));
  return result.ok ? json(result.answer) : problem(result.status, result.code, result.message);
};

/** The automatic offer (when it is on) and the rule sentence, for the drawer to show before any code is typed. */
export const GET: APIRoute = async () => {
  const { db } = await getServices();
  const offer = await asService(db, loadOffer);
  return json({
    offer: offer ? { thresholdCents: offer.thresholdCents, percent: offer.percent, combines: offer.combines } : null,
    rule: shopperRule(offer),
  });
};
