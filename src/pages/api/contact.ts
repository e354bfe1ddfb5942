import type { APIRoute } from 'astro';
import { shopper } from '@/app/shopper.server';
import { CONTACT_MESSAGES } from '@/features/contact/contact.rules';
import { contactBody, saveContactMessage } from '@/features/contact/contact.server';
import { clientAddress, json, readJson, tooManyRequests } from '@/server/http.server';
import { hit } from '@/server/ratelimit.server';

export const prerender = false;

/** The contact form: validated, rate limited, stored as the shopper (or a guest). */
export const POST: APIRoute = async (ctx) => {
  const body = await readJson(ctx.request, contactBody);
  if ('response' in body) return body.response;
  const { services, run } = await shopper(ctx);
  const limited = await hit(
    services.db,
    `contact:${clientAddress(ctx, services.config)}`,
    services.config.limits.contactPerAddress,
  );
  if (!limited.ok) return tooManyRequests(limited.retryAfter, 'Too many messages. Please wait a moment and try again.');
  await run((tx) => saveContactMessage(tx, body.data));
  return json({ message: CONTACT_MESSAGES.sent }, 201);
};
