import type { APIRoute } from 'astro';
import { adminDiscountDeps } from '@/app/admin-request.server';
import { adminDiscountStatus } from '@/features/admin/discounts/discount-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** Pauses, resumes or ends a code {to: "paused" | "active" | "ended"}, recorded in the activity log. Admins only. */
export const POST: APIRoute = async ({ request, cookies, params }) =>
  adminDiscountStatus(await adminDiscountDeps(), request, cookieJar(request, cookies), params.id);
