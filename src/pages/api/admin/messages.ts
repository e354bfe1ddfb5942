import type { APIRoute } from 'astro';
import { adminDeps } from '@/app/admin-request.server';
import { markMessagesRoute } from '@/features/admin/messages/messages.server';
import { cookieJar } from '@/server/http.server';

export const prerender = false;

/** Marks contact messages read or unread {ids, read}: the admin's alone (anyone else gets 404). */
export const POST: APIRoute = async ({ request, cookies }) =>
  markMessagesRoute(await adminDeps(), request, cookieJar(request, cookies));
