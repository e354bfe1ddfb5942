import type { APIRoute } from 'astro';
import { adminDeps } from '@/app/admin-request.server';
import { cataloguePublishRoute, cataloguePublishStateRoute } from '@/features/editor/catalogue-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** The publish panel's state: what is live, the newest publish (queued, building, live, failed). Editors only. */
export const GET: APIRoute = async ({ request, cookies }) =>
  cataloguePublishStateRoute(await adminDeps(), cookieJar(request, cookies));

/** Publishes everything saved: queued for the background build, which switches shoppers to it once it succeeds. */
export const POST: APIRoute = async ({ request, cookies }) =>
  cataloguePublishRoute(await adminDeps(), cookieJar(request, cookies));
