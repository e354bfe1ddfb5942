import type { APIRoute } from 'astro';
import { adminDiscountDeps } from '@/app/admin-request.server';
import { adminDiscountCreate, adminDiscountsList } from '@/features/admin/discounts/discount-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** Every discount code with its uses, and the automatic offer. Admins only: 404 otherwise. */
export const GET: APIRoute = async ({ request, cookies }) =>
  adminDiscountsList(await adminDiscountDeps(), cookieJar(request, cookies));

/** Creates a code {code, kind, percent | amountCents, minSubtotalCents, startsAt, endsAt, …}, recorded in the activity log. */
export const POST: APIRoute = async ({ request, cookies }) =>
  adminDiscountCreate(await adminDiscountDeps(), request, cookieJar(request, cookies));
