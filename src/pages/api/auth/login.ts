import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { sessionUserOf } from '@/features/admin/admin.server';
import { AUTH_MESSAGES } from '@/lib/auth.rules';
import { loginBody } from '@/server/auth/auth.schemas';
import { signInWithLimits } from '@/server/auth/login-limits.server';
import { activeSession } from '@/server/auth/session.server';
import { clientAddress, cookieJar, json, problem, readJson, tooManyRequests } from '@/server/http.server';

export const prerender = false;

/** Signs in with e-mail and password and starts a fresh session cookie. */
export const POST: APIRoute = async (context) => {
  const { request, cookies } = context;
  const body = await readJson(request, loginBody);
  if ('response' in body) return body.response;
  const { db, auth, config } = await getServices();
  const jar = cookieJar(request, cookies);
  const attempt = await signInWithLimits(
    db,
    config.limits,
    { email: body.data.email, address: clientAddress(context, config) },
    () => auth.signIn(body.data, jar),
  );
  if (!attempt.ok) return tooManyRequests(attempt.retryAfter, AUTH_MESSAGES.tooManyAttempts);
  const { result } = attempt;
  if (!result.ok) return problem(400, result.error.code, result.error.message);
  const session = await activeSession(db, auth, jar, { touch: true });
  return json({
    user: await sessionUserOf({ db, adminEmails: config.adminEmails }, session?.user ?? result.value),
    message: AUTH_MESSAGES.welcome,
  });
};
