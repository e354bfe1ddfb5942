import type { APIRoute } from 'astro';
import { adminOrderDeps } from '@/app/admin-request.server';
import { getServices } from '@/app/services.server';
import { adminOrderRefund } from '@/features/admin/orders/order-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** Refunds an order through the payments port, all that is left or an amount, once per click. Admins only: anyone else gets 404. */
export const POST: APIRoute = async ({ request, cookies, params }) =>
  adminOrderRefund(adminOrderDeps(await getServices()), request, cookieJar(request, cookies), params.id);
