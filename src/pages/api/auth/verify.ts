import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { sessionUserOf } from '@/features/admin/admin.server';
import { AUTH_MESSAGES } from '@/lib/auth.rules';
import { verifyBody } from '@/server/auth/auth.schemas';
import { activeSession } from '@/server/auth/session.server';
import { clientAddress, cookieJar, json, problem, readJson, tooManyRequests } from '@/server/http.server';
import { hit } from '@/server/ratelimit.server';

export const prerender = false;

/**
 * The link in a verification e-mail (and Supabase's redirect after its own): the page that asks for the password the
 * account was created with. A link alone confirms nothing, so an old e-mail's link lands there too.
 */
export const GET: APIRoute = ({ url, redirect }) => {
  const token = url.searchParams.get('token') ?? '';
  return redirect(token ? `/confirm-email?token=${encodeURIComponent(token)}` : '/?verified=0', 303);
};

/** Confirms the address with the link's token and the sign-up's password, then signs the shopper in with it. */
export const POST: APIRoute = async (context) => {
  const body = await readJson(context.request, verifyBody);
  if ('response' in body) return body.response;
  const { db, auth, config } = await getServices();
  const limited = await hit(db, `verify:ip:${clientAddress(context, config)}`, config.limits.resetPerAddress);
  if (!limited.ok) return tooManyRequests(limited.retryAfter, AUTH_MESSAGES.tooManyAttempts);
  const verified = await auth.verifyEmail(body.data);
  if (!verified.ok) return problem(400, verified.error.code, verified.error.message);
  const jar = cookieJar(context.request, context.cookies);
  const signedIn = await auth.signIn({ email: verified.value.email, password: body.data.password }, jar);
  if (!signedIn.ok) return problem(400, signedIn.error.code, signedIn.error.message);
  const session = await activeSession(db, auth, jar, { touch: true });
  return json({
    user: await sessionUserOf({ db, adminEmails: config.adminEmails }, session?.user ?? signedIn.value),
    message: AUTH_MESSAGES.verified,
  });
};
