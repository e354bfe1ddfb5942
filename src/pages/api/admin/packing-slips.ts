import type { APIRoute } from 'astro';
import { adminOrderDeps } from '@/app/admin-request.server';
import { getServices } from '@/app/services.server';
import { adminPackingSlips } from '@/features/admin/orders/order-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** Packing slips for the orders named by ?id=… (one or more), as one PDF to print. Admins only: anyone else gets 404. */
export const GET: APIRoute = async ({ request, cookies }) =>
  adminPackingSlips(adminOrderDeps(await getServices()), cookieJar(request, cookies), request);
