import type { APIRoute } from 'astro';
import { adminDeps } from '@/app/admin-request.server';
import { adminOrderNoteRoute } from '@/features/admin/notes/notes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** Adds a private note to an order {note}: the admin's alone (anyone else gets 404). */
export const POST: APIRoute = async ({ request, cookies, params }) =>
  adminOrderNoteRoute(await adminDeps(), request, cookieJar(request, cookies), params.id);
