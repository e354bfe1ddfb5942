import type { APIRoute } from 'astro';
import { adminDeps } from '@/app/admin-request.server';
import { getServices } from '@/app/services.server';
import { scheduleRoute, scheduleStateRoute } from '@/features/editor/schedule-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** The scheduled publishes: upcoming and done, with who scheduled each. Editors only. */
export const GET: APIRoute = async ({ request, cookies }) => scheduleStateRoute(await adminDeps(), cookieJar(request, cookies));

/** Schedules a publish of what is saved {runAt: 'YYYY-MM-DDTHH:MM' on the shop's clock}. Editors only. */
export const POST: APIRoute = async ({ request, cookies }) =>
  scheduleRoute(
    { ...(await adminDeps()), timeZone: (await getServices()).config.shopTimeZone },
    request,
    cookieJar(request, cookies),
  );
