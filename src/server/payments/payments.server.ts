import type { Config } from '../config.server';
import type { Database } from '../db/database.server';
import type { PaymentsPort } from './payments.port';
import { createTestProcessor } from './test-processor.server';

/**
 * The payments adapter the configuration names: Stripe when its three keys are set, else the test processor. Each
 * production adapter's SDK is loaded only when it is used (see docs/performance.md, "Memory").
 */
export async function createPayments(config: Config['payments'], db: Database): Promise<PaymentsPort> {
  if (config.kind === 'stripe') {
    const { createStripePayments } = await import('./stripe.server');
    const { secretKey, publishableKey, webhookSecret } = config;
    // STRIPE_API_BASE (tests and mocks only) points the SDK at a local server that speaks Stripe's wire format.
    return createStripePayments({ secretKey, publishableKey, webhookSecret, ...(config.api ? { api: config.api } : {}) });
  }
  return createTestProcessor(db);
}
