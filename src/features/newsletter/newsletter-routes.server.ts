import { z } from 'astro/zod';
import type { CookieJar } from '@/server/auth/auth.port';
import { type Caller, type CallerDeps, requireCaller } from '@/server/caller.server';
import type { Database } from '@/server/db/database.server';
import { inSpecShape, json, problem, readJson, tooManyRequests } from '@/server/http.server';
import { hit, type Limits } from '@/server/ratelimit.server';
import { NEWSLETTER_MESSAGES, newsletterProblem } from './newsletter';
import { isSubscribed, subscribe } from './newsletter.server';

// The spec's two newsletter calls, for its clients: `GET /api/newsletter-status?userId={id}` and
// `POST /api/newsletter-subscribe` {email, userId}, each with a bearer token, and the cookie too. The footer's form
// keeps using /api/newsletter. The userId only guards: every query runs as the caller, so nobody can read or write
// another shopper's subscription whatever id they send; another id is refused (403) rather than ignored.

/** What the two routes need of the services (a subset, so tests can hand in their own). */
export interface NewsletterRouteDeps extends CallerDeps {
  limits: Pick<Limits, 'newsletterPerShopper'>;
}

const STATUS_LOGIN = 'Please log in to see your newsletter subscription';

export const subscribeBody = z.object(
  { email: z.string().max(320), userId: z.string().max(100) },
  { error: 'Send {"email": <your account e-mail>, "userId": <your user id>}.' },
);

/**
 * Subscribe and unsubscribe requests of one shopper, counted together by every newsletter route, so calling both
 * paths does not double the allowance. The 429 to answer, or null.
 */
export async function newsletterLimit(
  db: Database,
  userId: string,
  limits: Pick<Limits, 'newsletterPerShopper'>,
): Promise<Response | null> {
  const r = await hit(db, `newsletter:user:${userId}`, limits.newsletterPerShopper);
  return r.ok ? null : tooManyRequests(r.retryAfter, 'Too many requests. Please wait a moment and try again.');
}

/** GET /api/newsletter-status?userId={id}: 200 {isSubscribed} for the caller, who may ask only about themselves. */
export async function newsletterStatus(deps: NewsletterRouteDeps, request: Request, jar: CookieJar): Promise<Response> {
  return inSpecShape(await status(deps, request, jar));
}

/**
 * POST /api/newsletter-subscribe {email, userId}: 201 {error: null, subscribed: true}; failures {error, code}, among
 * them 409 'This email is already subscribed' (the spec's client tells the shopper 'You are already subscribed!').
 */
export async function newsletterSubscribe(deps: NewsletterRouteDeps, request: Request, jar: CookieJar): Promise<Response> {
  return inSpecShape(await subscribeCaller(deps, request, jar));
}

async function status(deps: NewsletterRouteDeps, request: Request, jar: CookieJar): Promise<Response> {
  const me = await requireCaller(deps, request, jar, STATUS_LOGIN);
  if (me instanceof Response) return me;
  const ids = new URL(request.url).searchParams.getAll('userId');
  if (ids.length !== 1) return problem(400, 'invalid_request', 'Ask with ?userId=<your user id>, once.');
  const refused = notSelf(me, ids[0], 'You can only ask about your own subscription.');
  if (refused) return refused;
  return json({ isSubscribed: await me.run(isSubscribed) });
}

async function subscribeCaller(deps: NewsletterRouteDeps, request: Request, jar: CookieJar): Promise<Response> {
  const me = await requireCaller(deps, request, jar, NEWSLETTER_MESSAGES.loginToSubscribe);
  if (me instanceof Response) return me;
  const body = await readJson(request, subscribeBody);
  if ('response' in body) return body.response;
  const refused = notSelf(me, body.data.userId, 'You can only subscribe yourself.');
  if (refused) return refused;
  // The footer form's checks and wording: an e-mail, a valid one (src/lib/email.ts), the account's own.
  const problemWith = newsletterProblem(body.data.email, me.session.claims.email);
  if (problemWith) return problem(400, 'invalid_email', [problemWith.title, problemWith.description].filter(Boolean).join(': '));
  const limited = await newsletterLimit(deps.db, me.session.user.id, deps.limits);
  if (limited) return limited;
  if ((await me.run(subscribe)) === 'already')
    return problem(409, 'already_subscribed', NEWSLETTER_MESSAGES.alreadySubscribedError);
  return json({ error: null, subscribed: true }, 201);
}

/** 403 unless `userId` is exactly the caller's own id. */
function notSelf(me: Caller, userId: string | undefined, message: string): Response | null {
  return userId === me.session.user.id ? null : problem(403, 'forbidden', message);
}
