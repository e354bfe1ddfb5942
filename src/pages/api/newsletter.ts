import type { APIRoute } from 'astro';
import { z } from 'astro/zod';
import { requireShopper, type SignedInShopper, shopper } from '@/app/shopper.server';
import { NEWSLETTER_MESSAGES, newsletterProblem } from '@/features/newsletter/newsletter';
import { isSubscribed, subscribe, unsubscribe } from '@/features/newsletter/newsletter.server';
import { newsletterLimit } from '@/features/newsletter/newsletter-routes.server';
import { json, problem, readJson } from '@/server/http.server';

export const prerender = false;

const subscribeBody = z.object({ email: z.string().max(320) }, { error: 'Send {"email": <your account e-mail>}.' });

/** Whether the signed-in shopper is subscribed: {subscribed}; guests are not. */
export const GET: APIRoute = async (ctx) => {
  const me = await shopper(ctx);
  return json({ subscribed: me.session ? await me.run(isSubscribed) : false });
};

/** Subscribes with the account's own e-mail: 201 {subscribed: true}; 409 when already subscribed. */
export const POST: APIRoute = async (ctx) => {
  const me = await requireShopper(ctx, NEWSLETTER_MESSAGES.loginToSubscribe);
  if (me instanceof Response) return me;
  const body = await readJson(ctx.request, subscribeBody);
  if ('response' in body) return body.response;
  const refusal = newsletterProblem(body.data.email, me.session.claims.email);
  if (refusal) return problem(400, 'invalid_email', [refusal.title, refusal.description].filter(Boolean).join(': '));
  const limited = await limit(me);
  if (limited) return limited;
  if ((await me.run(subscribe)) === 'already')
    return problem(409, 'already_subscribed', NEWSLETTER_MESSAGES.alreadySubscribedError);
  return json({ subscribed: true }, 201);
};

/** Ends the signed-in shopper's subscription: {subscribed: false, removed}. */
export const DELETE: APIRoute = async (ctx) => {
  const me = await requireShopper(ctx, NEWSLETTER_MESSAGES.loginToSubscribe);
  if (me instanceof Response) return me;
  const limited = await limit(me);
  if (limited) return limited;
  return json({ subscribed: false, removed: await me.run(unsubscribe) });
};

/** The same allowance as the spec's /api/newsletter-subscribe, counted together. */
function limit({ services, session }: SignedInShopper): Promise<Response | null> {
  return newsletterLimit(services.db, session.user.id, services.config.limits);
}
