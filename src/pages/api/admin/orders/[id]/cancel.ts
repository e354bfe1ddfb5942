import type { APIRoute } from 'astro';
import { adminOrderCancel, adminOrderDeps } from '@/server/admin/order-routes.server';
import { cookieJar } from '@/server/http.server';
import { getServices } from '@/server/services.server';

export const prerender = false;

/** Cancels an order that has not shipped, refunding it first. Admins only: anyone else gets 404. */
export const POST: APIRoute = async ({ request, cookies, params }) =>
  adminOrderCancel(adminOrderDeps(await getServices()), request, cookieJar(request, cookies), params.id);
