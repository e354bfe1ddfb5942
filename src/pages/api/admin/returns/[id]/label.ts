import type { APIRoute } from 'astro';
import { adminOrderDeps } from '@/app/admin-request.server';
import { getServices } from '@/app/services.server';
import { adminReturnLabel } from '@/features/admin/returns/return-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** The return label PDF the shop drew, to print or download again. Admins only: anyone else gets 404. */
export const GET: APIRoute = async ({ request, cookies, params }) =>
  adminReturnLabel(adminOrderDeps(await getServices()), cookieJar(request, cookies), params.id);
