import type { APIRoute } from 'astro';
import { getServices } from '@/app/services.server';
import { releaseHolds } from '@/features/stock/stock.server';
import { confirmTestCard } from '@/server/payments/test-card-routes.server';

export const prerender = false;

/** The TEST MODE card form charges a test card (404 unless the test processor is the payments adapter). */
export const POST: APIRoute = async ({ request }) => {
  const { db, payments, config } = await getServices();
  return confirmTestCard({ db, payments, limits: config.limits, onFailed: (intentId) => releaseHolds(db, intentId) }, request);
};
