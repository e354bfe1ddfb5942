import type { APIRoute } from 'astro';
import { adminOrderDeps, adminOrderRetry } from '@/server/admin/order-routes.server';
import { cookieJar } from '@/server/http.server';
import { getServices } from '@/server/services.server';

export const prerender = false;

/** Sends one of an order's failed label or e-mail jobs back to the outbox. Admins only: anyone else gets 404. */
export const POST: APIRoute = async ({ request, cookies, params }) =>
  adminOrderRetry(adminOrderDeps(await getServices()), request, cookieJar(request, cookies), params.id);
