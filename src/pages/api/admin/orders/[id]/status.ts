import type { APIRoute } from 'astro';
import { adminOrderDeps } from '@/app/admin-request.server';
import { getServices } from '@/app/services.server';
import { adminOrderStatus } from '@/features/admin/orders/order-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** Marks an order shipped or delivered (compare-and-set on the status the admin saw). Admins only: anyone else gets 404. */
export const POST: APIRoute = async ({ request, cookies, params }) =>
  adminOrderStatus(adminOrderDeps(await getServices()), request, cookieJar(request, cookies), params.id);
