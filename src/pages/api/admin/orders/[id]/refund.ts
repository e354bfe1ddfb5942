import type { APIRoute } from 'astro';
import { adminOrderDeps, adminOrderRefund } from '@/server/admin/order-routes.server';
import { cookieJar } from '@/server/http.server';
import { getServices } from '@/server/services.server';

export const prerender = false;

/** Refunds an order through the payments port, all that is left or an amount, once per click. Admins only: anyone else gets 404. */
export const POST: APIRoute = async ({ request, cookies, params }) =>
  adminOrderRefund(adminOrderDeps(await getServices()), request, cookieJar(request, cookies), params.id);
