import type { APIRoute } from 'astro';
import { adminDeps } from '@/app/admin-request.server';
import { cataloguePublishAgainRoute } from '@/features/editor/catalogue-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** Serves an earlier publish again: its catalogue live on every server, without what was saved since. Editors only. */
export const POST: APIRoute = async ({ request, cookies }) =>
  cataloguePublishAgainRoute(await adminDeps(), request, cookieJar(request, cookies));
