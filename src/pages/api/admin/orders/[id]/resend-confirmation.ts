import type { APIRoute } from 'astro';
import { adminOrderDeps } from '@/app/admin-request.server';
import { getServices } from '@/app/services.server';
import { adminOrderResend } from '@/features/admin/orders/order-ops.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** Queues the order's confirmation e-mail to the customer again, once per key the page sends. Admins only: anyone else gets 404. */
export const POST: APIRoute = async ({ request, cookies, params }) =>
  adminOrderResend(adminOrderDeps(await getServices()), request, cookieJar(request, cookies), params.id);
