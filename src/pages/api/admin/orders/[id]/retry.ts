import type { APIRoute } from 'astro';
import { adminOrderDeps } from '@/app/admin-request.server';
import { getServices } from '@/app/services.server';
import { adminOrderRetry } from '@/features/admin/orders/order-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** Sends one of an order's failed label or e-mail jobs back to the outbox. Admins only: anyone else gets 404. */
export const POST: APIRoute = async ({ request, cookies, params }) =>
  adminOrderRetry(adminOrderDeps(await getServices()), request, cookieJar(request, cookies), params.id);
