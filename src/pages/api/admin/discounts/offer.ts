import type { APIRoute } from 'astro';
import { adminDiscountDeps } from '@/app/admin-request.server';
import { adminOfferGet, adminOfferSave } from '@/features/admin/discounts/discount-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** The automatic offer and the rule shoppers read. Admins only: 404 otherwise. */
export const GET: APIRoute = async ({ request, cookies }) =>
  adminOfferGet(await adminDiscountDeps(), cookieJar(request, cookies));

/** Sets the automatic offer {thresholdCents, percent, active, combines, version?}, recorded in the activity log. */
export const POST: APIRoute = async ({ request, cookies }) =>
  adminOfferSave(await adminDiscountDeps(), request, cookieJar(request, cookies));
