import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { releasePayment } from '@/features/checkout/payment-events.server';
import { confirmTestCard } from '@/server/payments/test-card-routes.server';

export const prerender = false;

/** The TEST MODE card form charges a test card (404 unless the test processor is the payments adapter). */
export const POST: APIRoute = async ({ request }) => {
  const { db, payments, config } = await getServices();
  return confirmTestCard({ db, payments, limits: config.limits, onFailed: (intentId) => releasePayment(db, intentId) }, request);
};
