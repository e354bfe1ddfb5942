import type { APIRoute } from 'astro';
import { adminDeps } from '@/app/admin-request.server';
import { cataloguePictureRoute } from '@/features/editor/catalogue-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** A picture (the seed's or an uploaded one) for the editor's preview. Editors only: 404 otherwise. */
export const GET: APIRoute = async ({ request, cookies, params }) =>
  cataloguePictureRoute(await adminDeps(), cookieJar(request, cookies), params.name ?? '');
