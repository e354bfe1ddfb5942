import type { APIRoute } from 'astro';
import { previewDeps } from '@/app/preview-request.server';
import { previewLinkRoute } from '@/features/editor/preview-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** Makes a signed link {file, hours} to a product's preview, for someone without an account. Editors only. */
export const POST: APIRoute = async ({ request, cookies }) =>
  previewLinkRoute(await previewDeps(), request, cookieJar(request, cookies));
