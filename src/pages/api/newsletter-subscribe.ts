import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { newsletterSubscribe } from '@/features/newsletter/newsletter-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** The spec's subscribe call {email, userId}: the caller (bearer token or cookie) subscribes themselves; {error} when not. */
export const POST: APIRoute = async ({ request, cookies }) => {
  const { db, auth, config } = await getServices();
  return newsletterSubscribe({ db, auth, limits: config.limits }, request, cookieJar(request, cookies));
};
