import type { APIRoute } from 'astro';
import { adminDeps } from '@/app/admin-request.server';
import { getServices } from '@/app/services.server';
import { cancelScheduleRoute } from '@/features/editor/schedule-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** Cancels a scheduled publish {id} that has not started. Editors only. */
export const POST: APIRoute = async ({ request, cookies }) =>
  cancelScheduleRoute(
    { ...(await adminDeps()), timeZone: (await getServices()).config.shopTimeZone },
    request,
    cookieJar(request, cookies),
  );
