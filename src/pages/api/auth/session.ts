import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { sessionUserOf } from '@/features/admin/admin.server';
import { publicUser } from '@/features/auth/auth.server';
import { activeSession } from '@/server/auth/session.server';
import { cookieJar, json } from '@/server/http.server';

export const prerender = false;

/** Who is signed in. The browser asks every 3 minutes; asking is not activity, so it never keeps an idle session alive. */
export const GET: APIRoute = async ({ request, cookies }) => {
  const { db, auth, config } = await getServices();
  const session = await activeSession(db, auth, cookieJar(request, cookies), { touch: false });
  return json({ user: session ? await sessionUserOf({ db, adminEmails: config.adminEmails }, session.user) : null });
};

/**
 * Records activity (the shopper clicked or typed) and answers who is signed in. Sent at most once a minute while the
 * shopper is active, and read only for whether the session still stands, so it does not ask whether they are an
 * admin (GET, at page load, does).
 */
export const POST: APIRoute = async ({ request, cookies }) => {
  const { db, auth } = await getServices();
  const session = await activeSession(db, auth, cookieJar(request, cookies), { touch: true });
  return json({ user: session ? publicUser(session.user) : null });
};
