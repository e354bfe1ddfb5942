import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { handlePaymentEvent } from '@/features/checkout/payment-events.server';
import { json, problem, readRawBody } from '@/server/http.server';

export const prerender = false;

/** Stripe's events are a few kilobytes; this leaves room without reading an unbounded body. */
const MAX_EVENT_BYTES = 256 * 1024;

/**
 * The payment processor's webhook: the one state-changing /api route exempt from the Origin check (src/middleware.ts),
 * because the processor's servers call it. It trusts nothing but the signature over the raw body.
 */
export const POST: APIRoute = async ({ request }) => {
  const body = await readRawBody(request, MAX_EVENT_BYTES);
  if ('response' in body) return body.response;
  const { db, payments, nudgeOutbox } = await getServices();
  const result = await handlePaymentEvent(db, payments, body.text, request.headers.get('stripe-signature'), {
    onQueued: nudgeOutbox,
  });
  if (result.status === 200) return json(result.body);
  return problem(result.status, result.status === 400 ? 'invalid_signature' : 'not_handled', result.message);
};
