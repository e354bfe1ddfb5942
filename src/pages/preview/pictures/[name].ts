import type { APIRoute } from 'astro';
import { previewDeps } from '@/app/preview-request.server';
import { LINK_PARAM } from '@/features/editor/preview';
import { previewPictureRoute } from '@/features/editor/preview-routes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** A picture a preview shows: for an editor's session, or with the link's token (`?link=`). Never stored. */
export const GET: APIRoute = async ({ params, request, cookies, url }) =>
  previewPictureRoute(await previewDeps(), cookieJar(request, cookies), url.searchParams.get(LINK_PARAM), params.name ?? '');
