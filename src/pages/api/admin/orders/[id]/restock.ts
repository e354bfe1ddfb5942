import type { APIRoute } from 'astro';
import { adminOrderDeps } from '@/app/admin-request.server';
import { getServices } from '@/app/services.server';
import { adminOrderRestock } from '@/features/admin/orders/order-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** Puts what the order took from the counts back in stock, once. Admins only: anyone else gets 404. */
export const POST: APIRoute = async ({ request, cookies, params }) =>
  adminOrderRestock(adminOrderDeps(await getServices()), request, cookieJar(request, cookies), params.id);
