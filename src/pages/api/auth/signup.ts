import type { APIRoute } from 'astro';
import { AUTH_MESSAGES } from '@/features/auth/auth.rules';
import { signUpBody } from '@/server/auth/auth.schemas';
import { json, problem, readJson, tooManyRequests } from '@/server/http.server';
import { hit } from '@/server/ratelimit.server';
import { getServices, linkOrigin } from '@/server/services.server';

export const prerender = false;

/** Creates an account and e-mails a verification link; the answer is the same whether or not the e-mail had an account. */
export const POST: APIRoute = async ({ request, clientAddress }) => {
  const body = await readJson(request, signUpBody);
  if ('response' in body) return body.response;
  const { db, auth, config } = await getServices();
  const limited = await hit(db, `signup:${clientAddress}`, config.limits.signupPerAddress);
  if (!limited.ok) return tooManyRequests(limited.retryAfter, AUTH_MESSAGES.tooManyAttempts);
  const result = await auth.signUp(body.data, { origin: linkOrigin(config, request) });
  if (!result.ok) return problem(400, result.error.code, result.error.message);
  return json({ message: AUTH_MESSAGES.signedUp });
};
