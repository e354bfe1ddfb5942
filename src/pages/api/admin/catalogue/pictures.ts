import type { APIRoute } from 'astro';
import { adminDeps } from '@/app/admin-request.server';
import { cataloguePictureUploadRoute } from '@/features/editor/catalogue-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** Uploads a picture (the body is its bytes, `?name=` its file's name): SVG, PNG, JPEG or WebP, 1 MB at most. Editors only. */
export const POST: APIRoute = async ({ request, cookies }) =>
  cataloguePictureUploadRoute(await adminDeps(), request, cookieJar(request, cookies));
