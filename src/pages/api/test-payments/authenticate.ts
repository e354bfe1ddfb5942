import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { releasePayment } from '@/features/checkout/payment-events.server';
import { authenticateTestCard } from '@/server/payments/test-card-routes.server';

export const prerender = false;

/** The shopper completes or fails a test card's 3-D Secure challenge (404 unless the test processor runs). */
export const POST: APIRoute = async ({ request }) => {
  const { db, payments, config } = await getServices();
  return authenticateTestCard(
    { db, payments, limits: config.limits, onFailed: (intentId) => releasePayment(db, intentId) },
    request,
  );
};
