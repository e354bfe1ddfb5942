import type { APIRoute } from 'astro';
import { adminOrderDeps } from '@/app/admin-request.server';
import { getServices } from '@/app/services.server';
import { adminReturnAction } from '@/features/admin/returns/return-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** Declines a return with a reason the customer is e-mailed. Admins only: anyone else gets 404. */
export const POST: APIRoute = async ({ request, cookies, params }) =>
  adminReturnAction(adminOrderDeps(await getServices()), 'decline', request, cookieJar(request, cookies), params.id);
