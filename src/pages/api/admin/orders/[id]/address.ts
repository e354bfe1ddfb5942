import type { APIRoute } from 'astro';
import { adminOrderDeps } from '@/app/admin-request.server';
import { getServices } from '@/app/services.server';
import { adminOrderAddress } from '@/features/admin/orders/order-ops.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** Changes where the order ships, until its label is bought, within its state. Admins only: anyone else gets 404. */
export const POST: APIRoute = async ({ request, cookies, params }) =>
  adminOrderAddress(adminOrderDeps(await getServices()), request, cookieJar(request, cookies), params.id);
