import type { APIRoute } from 'astro';
import { AUTH_MESSAGES, normalizeEmail } from '@/features/auth/auth.rules';
import { loginBody } from '@/server/auth/auth.schemas';
import { activeSession } from '@/server/auth/session.server';
import { clientAddress, cookieJar, json, problem, readJson, tooManyRequests } from '@/server/http.server';
import { hitAll } from '@/server/ratelimit.server';
import { getServices, publicUser } from '@/server/services.server';

export const prerender = false;

/** Signs in with e-mail and password and starts a fresh session cookie. */
export const POST: APIRoute = async (context) => {
  const { request, cookies } = context;
  const body = await readJson(request, loginBody);
  if ('response' in body) return body.response;
  const { db, auth, config } = await getServices();
  // Per address and per e-mail: one guesser cannot lock a shopper out from everywhere, nor try many accounts.
  const limited = await hitAll(db, [
    [`login:ip:${clientAddress(context, config)}`, config.limits.loginPerAddress],
    [`login:email:${normalizeEmail(body.data.email)}`, config.limits.loginPerEmail],
  ]);
  if (!limited.ok) return tooManyRequests(limited.retryAfter, AUTH_MESSAGES.tooManyAttempts);
  const jar = cookieJar(request, cookies);
  const result = await auth.signIn(body.data, jar);
  if (!result.ok) return problem(400, result.error.code, result.error.message);
  const session = await activeSession(db, auth, jar, { touch: true });
  return json({ user: publicUser(session?.user ?? result.value), message: AUTH_MESSAGES.welcome });
};
