import type { APIRoute } from 'astro';
import { adminDeps } from '@/app/admin-request.server';
import { editorsListRoute, editorsSetRoute } from '@/features/editor/catalogue-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** The accounts with the editor role. Admins only: 404 otherwise (editors included). */
export const GET: APIRoute = async ({ request, cookies }) => editorsListRoute(await adminDeps(), cookieJar(request, cookies));

/** Grants or removes the editor role {email, editor: boolean}, recorded in the activity log. Admins only. */
export const POST: APIRoute = async ({ request, cookies }) =>
  editorsSetRoute(await adminDeps(), request, cookieJar(request, cookies));
