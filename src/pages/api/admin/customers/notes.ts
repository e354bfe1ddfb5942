import type { APIRoute } from 'astro';
import { adminDeps } from '@/app/admin-request.server';
import { adminCustomerNoteRoute } from '@/features/admin/notes/notes.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** Adds a private note to a customer {userId | email, note}: the admin's alone (anyone else gets 404). */
export const POST: APIRoute = async ({ request, cookies }) =>
  adminCustomerNoteRoute(await adminDeps(), request, cookieJar(request, cookies));
