import type { APIRoute } from 'astro';
import { adminOrderDeps } from '@/app/admin-request.server';
import { getServices } from '@/app/services.server';
import { adminOrderLabel } from '@/features/admin/orders/order-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** An order's label PDF, to print or download again. Admins only: anyone else gets 404. */
export const GET: APIRoute = async ({ request, cookies, params }) =>
  adminOrderLabel(adminOrderDeps(await getServices()), cookieJar(request, cookies), params.id);
