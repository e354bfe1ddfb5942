import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { returnLabel } from '@/features/returns/return-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** The return label PDF the shop drew, for the order's owner or whoever holds the order's link (?token=…). */
export const GET: APIRoute = async ({ request, cookies, params }) => {
  const { db, auth } = await getServices();
  return returnLabel({ db, auth }, request, cookieJar(request, cookies), params.id);
};
