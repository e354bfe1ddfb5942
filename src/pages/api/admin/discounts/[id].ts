import type { APIRoute } from 'astro';
import { adminDiscountDeps } from '@/app/admin-request.server';
import { adminDiscountEdit, adminDiscountGet } from '@/features/admin/discounts/discount-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** A code, its latest orders, its revenue and the discount it gave. Admins only: 404 otherwise. */
export const GET: APIRoute = async ({ request, cookies, params }) =>
  adminDiscountGet(await adminDiscountDeps(), cookieJar(request, cookies), params.id);

/** Changes a code's rules {kind, …, version?} (not its name), recorded in the activity log. Admins only. */
export const POST: APIRoute = async ({ request, cookies, params }) =>
  adminDiscountEdit(await adminDiscountDeps(), request, cookieJar(request, cookies), params.id);
