import type { APIRoute } from 'astro';
import { adminDeps } from '@/app/admin-request.server';
import { catalogueExportRoute } from '@/features/editor/catalogue-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/**
 * The catalogue as saved, as the next publish would build it: a .zip of content/products/*.md and the uploaded
 * pictures, to unzip at the project's root and commit (decision 018). Editors only: 404 otherwise.
 */
export const GET: APIRoute = async ({ request, cookies }) => catalogueExportRoute(await adminDeps(), cookieJar(request, cookies));
