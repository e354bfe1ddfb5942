import type { APIRoute } from 'astro';
import { adminDeps } from '@/app/admin-request.server';
import { catalogueUndoRoute } from '@/features/editor/catalogue-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** Undoes a save {revision}: a new save of the text before it. Editors only: 404 otherwise. */
export const POST: APIRoute = async ({ request, cookies }) =>
  catalogueUndoRoute(await adminDeps(), request, cookieJar(request, cookies));
