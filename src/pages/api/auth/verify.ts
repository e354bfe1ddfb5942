import type { APIRoute } from 'astro';
import { getServices } from '@/server/services.server';

export const prerender = false;

/** The link in the verification e-mail: confirms the address and sends the shopper home to log in. */
export const GET: APIRoute = async ({ url, redirect }) => {
  const token = url.searchParams.get('token') ?? '';
  const { auth } = await getServices();
  const result = token ? await auth.verifyEmail(token) : { ok: false };
  return redirect(result.ok ? '/?verified=1' : '/?verified=0', 303);
};
