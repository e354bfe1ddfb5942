import type { APIRoute } from 'astro';
import { adminDeps } from '@/app/admin-request.server';
import { catalogueRepositoryChoiceRoute } from '@/features/editor/catalogue-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/**
 * For a product changed in the repository since editors saved it: {change, base, choice: 'keep' | 'take'} keeps the
 * saved version or takes the repository's, as a save (decision 018). Editors only: 404 otherwise.
 */
export const POST: APIRoute = async ({ request, cookies, params }) =>
  catalogueRepositoryChoiceRoute(await adminDeps(), request, cookieJar(request, cookies), params.slug ?? '');
