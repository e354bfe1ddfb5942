import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { AUTH_MESSAGES, normalizeEmail } from '@/lib/auth.rules';
import { queueAccountMail } from '@/server/auth/account-mail.server';
import { resetRequestBody } from '@/server/auth/auth.schemas';
import { clientAddress, json, readJson, tooManyRequests } from '@/server/http.server';
import { hitAll } from '@/server/ratelimit.server';

export const prerender = false;

/** E-mails a reset link when the address has an account; neither the answer nor its timing says whether it has. */
export const POST: APIRoute = async (context) => {
  const { request } = context;
  const body = await readJson(request, resetRequestBody);
  if ('response' in body) return body.response;
  const { db, config, nudgeOutbox } = await getServices();
  const limited = await hitAll(db, [
    [`reset:ip:${clientAddress(context, config)}`, config.limits.resetPerAddress],
    [`reset:email:${normalizeEmail(body.data.email)}`, config.limits.resetPerEmail],
  ]);
  if (!limited.ok) return tooManyRequests(limited.retryAfter, AUTH_MESSAGES.tooManyAttempts);
  // The same work for any address: the lookup and the mail happen in the outbox, after the answer.
  await queueAccountMail(db, 'password-reset', body.data.email);
  nudgeOutbox();
  return json({ message: AUTH_MESSAGES.resetSent });
};
