import type { APIRoute } from 'astro';
import { adminDeps } from '@/app/admin-request.server';
import { getServices } from '@/app/services.server';
import { ordersCsvRoute } from '@/features/admin/sales/orders-csv.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** The orders as a CSV download for the accounts (?period=7d|30d|90d|ytd, or ?from=…&to=…): the admin's alone. */
export const GET: APIRoute = async ({ request, cookies }) =>
  ordersCsvRoute(
    { ...(await adminDeps()), timeZone: (await getServices()).config.shopTimeZone },
    cookieJar(request, cookies),
    request,
  );
