import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { newsletterStatus } from '@/features/newsletter/newsletter-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** The spec's status call: {isSubscribed} for the caller (bearer token or cookie), who may ask only about themselves. */
export const GET: APIRoute = async ({ request, cookies }) => {
  const { db, auth, config } = await getServices();
  return newsletterStatus({ db, auth, limits: config.limits }, request, cookieJar(request, cookies));
};
