import type { APIRoute } from 'astro';
import { adminOrderDeps } from '@/app/admin-request.server';
import { getServices } from '@/app/services.server';
import { adminOrderCancel } from '@/features/admin/orders/order-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** Cancels an order that has not shipped, refunding it first. Admins only: anyone else gets 404. */
export const POST: APIRoute = async ({ request, cookies, params }) =>
  adminOrderCancel(adminOrderDeps(await getServices()), request, cookieJar(request, cookies), params.id);
