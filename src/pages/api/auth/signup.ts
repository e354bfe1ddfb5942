import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { AUTH_MESSAGES, normalizeEmail } from '@/lib/auth.rules';
import { signUpBody } from '@/server/auth/auth.schemas';
import { clientAddress, json, problem, readJson, tooManyRequests } from '@/server/http.server';
import { hitAll } from '@/server/ratelimit.server';

export const prerender = false;

/**
 * Creates an account and e-mails a verification link; the answer is the same whether or not the e-mail had an account.
 * Limited per client address and per e-mail address, since every sign-up sends that address a mail.
 */
export const POST: APIRoute = async (context) => {
  const { request } = context;
  const body = await readJson(request, signUpBody);
  if ('response' in body) return body.response;
  const { db, auth, config } = await getServices();
  const limited = await hitAll(db, [
    [`signup:${clientAddress(context, config)}`, config.limits.signupPerAddress],
    [`signup:email:${normalizeEmail(body.data.email)}`, config.limits.signupPerEmail],
  ]);
  if (!limited.ok) return tooManyRequests(limited.retryAfter, AUTH_MESSAGES.tooManyAttempts);
  const result = await auth.signUp(body.data, { origin: config.publicOrigin });
  if (!result.ok) return problem(400, result.error.code, result.error.message);
  return json({ message: AUTH_MESSAGES.signedUp });
};
