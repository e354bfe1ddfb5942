import type { APIRoute } from 'astro';
import { adminDeps } from '@/app/admin-request.server';
import { catalogueCreateRoute, catalogueListRoute } from '@/features/editor/catalogue-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** The catalogue as saved, each product marked when shoppers do not see its newest save yet. Editors only: 404 otherwise. */
export const GET: APIRoute = async ({ request, cookies }) => catalogueListRoute(await adminDeps(), cookieJar(request, cookies));

/** Creates a product {from, name, sku}: a copy of another with the next free id, saved like any save. Editors only. */
export const POST: APIRoute = async ({ request, cookies }) =>
  catalogueCreateRoute(await adminDeps(), request, cookieJar(request, cookies));
