import type { Config } from '../config.server';
import type { Database } from '../db/database.server';
import type { PaymentsPort } from './payments.port';
import { createStripePayments } from './stripe.server';
import { createTestProcessor } from './test-processor.server';

/** The payments adapter the configuration names: Stripe when its three keys are set, else the test processor. */
export function createPayments(config: Config['payments'], db: Database): PaymentsPort {
  if (config.kind === 'stripe') {
    const { secretKey, publishableKey, webhookSecret } = config;
    // STRIPE_API_BASE (tests and mocks only) points the SDK at a local server that speaks Stripe's wire format.
    return createStripePayments({ secretKey, publishableKey, webhookSecret, ...(config.api ? { api: config.api } : {}) });
  }
  return createTestProcessor(db);
}
