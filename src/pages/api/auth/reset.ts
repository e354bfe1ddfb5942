import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { AUTH_MESSAGES } from '@/lib/auth.rules';
import { resetBody } from '@/server/auth/auth.schemas';
import { clientAddress, json, problem, readJson, tooManyRequests } from '@/server/http.server';
import { hit } from '@/server/ratelimit.server';

export const prerender = false;

/** Sets a new password with the token from a reset link (single use, expiring). */
export const POST: APIRoute = async (context) => {
  const { request } = context;
  const body = await readJson(request, resetBody);
  if ('response' in body) return body.response;
  const { db, auth, config } = await getServices();
  const limited = await hit(db, `reset:ip:${clientAddress(context, config)}`, config.limits.resetPerAddress);
  if (!limited.ok) return tooManyRequests(limited.retryAfter, AUTH_MESSAGES.tooManyAttempts);
  const result = await auth.resetPassword({ token: body.data.token, password: body.data.password });
  if (!result.ok) return problem(400, result.error.code, result.error.message);
  return json({ message: AUTH_MESSAGES.resetDone });
};
