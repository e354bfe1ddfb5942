import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { cookieJar, json } from '@/server/http.server';

export const prerender = false;

/** Ends the session; without one it still answers 200 (a missing session is not an error). */
export const POST: APIRoute = async ({ request, cookies }) => {
  const { auth } = await getServices();
  await auth.signOut(cookieJar(request, cookies));
  return json({ user: null });
};
