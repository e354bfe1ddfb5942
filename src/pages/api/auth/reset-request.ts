import type { APIRoute } from 'astro';
import { AUTH_MESSAGES, normalizeEmail } from '@/features/auth/auth.rules';
import { resetRequestBody } from '@/server/auth/auth.schemas';
import { clientAddress, json, readJson, tooManyRequests } from '@/server/http.server';
import { hitAll } from '@/server/ratelimit.server';
import { getServices } from '@/server/services.server';

export const prerender = false;

/** E-mails a reset link when the address has an account; the answer never says whether it has. */
export const POST: APIRoute = async (context) => {
  const { request } = context;
  const body = await readJson(request, resetRequestBody);
  if ('response' in body) return body.response;
  const { db, auth, config } = await getServices();
  const limited = await hitAll(db, [
    [`reset:ip:${clientAddress(context, config)}`, config.limits.resetPerAddress],
    [`reset:email:${normalizeEmail(body.data.email)}`, config.limits.resetPerEmail],
  ]);
  if (!limited.ok) return tooManyRequests(limited.retryAfter, AUTH_MESSAGES.tooManyAttempts);
  await auth.requestPasswordReset(body.data.email, { origin: config.publicOrigin });
  return json({ message: AUTH_MESSAGES.resetSent });
};
