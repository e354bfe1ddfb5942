import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { AUTH_MESSAGES, normalizeEmail } from '@/lib/auth.rules';
import { queueAccountMail } from '@/server/auth/account-mail.server';
import { CONFIRMATION_RESENT } from '@/server/auth/auth.port';
import { resetRequestBody } from '@/server/auth/auth.schemas';
import { clientAddress, json, readJson, tooManyRequests } from '@/server/http.server';
import { hitAll } from '@/server/ratelimit.server';

export const prerender = false;

/**
 * Sends a new confirmation link to an account that is not confirmed yet ('Email not confirmed' at login). Neither the
 * answer nor its timing says whether the address has one; the mails it sends count against the address's sign-up
 * mails (3 an hour), so it is no way to flood a mailbox either.
 */
export const POST: APIRoute = async (context) => {
  const body = await readJson(context.request, resetRequestBody);
  if ('response' in body) return body.response;
  const { db, config, nudgeOutbox } = await getServices();
  const limited = await hitAll(db, [
    [`resend:ip:${clientAddress(context, config)}`, config.limits.resetPerAddress],
    [`signup:email:${normalizeEmail(body.data.email)}`, config.limits.signupPerEmail],
  ]);
  if (!limited.ok) return tooManyRequests(limited.retryAfter, AUTH_MESSAGES.tooManyAttempts);
  await queueAccountMail(db, 'confirmation-resend', body.data.email);
  nudgeOutbox();
  return json({ message: CONFIRMATION_RESENT });
};
