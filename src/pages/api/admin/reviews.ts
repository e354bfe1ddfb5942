import type { APIRoute } from 'astro';
import { adminDeps } from '@/app/admin-request.server';
import { decideReviewsRoute } from '@/features/admin/reviews/moderation.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** Approves or rejects reviews {ids, decision}: the admin's alone (anyone else gets 404). */
export const POST: APIRoute = async ({ request, cookies }) =>
  decideReviewsRoute(await adminDeps(), request, cookieJar(request, cookies));
