import type { APIRoute } from 'astro';
import { adminDeps } from '@/app/admin-request.server';
import { subscribersCsvRoute } from '@/features/admin/subscribers/subscribers.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** The newsletter list as a CSV download: the admin's alone (anyone else gets 404). */
export const GET: APIRoute = async ({ request, cookies }) => subscribersCsvRoute(await adminDeps(), cookieJar(request, cookies));
