import { createHash } from 'node:crypto';
import { z } from 'astro/zod';
import type { Database } from '../db/database.server';
import { json, problem, readJson, tooManyRequests } from '../http.server';
import { hit, type Limits } from '../ratelimit.server';
import { PaymentsError, type PaymentsPort } from './payments.port';
import { type ConfirmResult, IntentNotConfirmableError, isTestProcessor } from './test-processor.server';

/** What the two routes need of the services (a subset, so tests can hand in their own). */
export interface TestCardDeps {
  db: Database;
  payments: PaymentsPort;
  limits: Pick<Limits, 'testCardPerIntent'>;
  /**
   * Told of a payment the processor refused (a declined card, a failed 3-D Secure challenge), as Stripe tells the
   * shop through its `payment_intent.payment_failed` webhook: the shop lets go of what the checkout held.
   */
  onFailed?: (intentId: string) => Promise<unknown>;
}

/** A card the processor refused (not a field the form should have caught): the payment failed. */
async function reportFailure(deps: TestCardDeps, secret: string, result: ConfirmResult): Promise<void> {
  if (result.status === 'requires_payment_method' && result.error && !result.field) {
    await deps.onFailed?.(secret.split('_secret_')[0] ?? '');
  }
}

const clientSecret = z.string({ error: 'clientSecret is required' }).min(1).max(200);

export const confirmBody = z.object({
  clientSecret,
  number: z.string({ error: 'number is required' }).max(40),
  expMonth: z.number({ error: 'expMonth must be a number' }).int(),
  expYear: z.number({ error: 'expYear must be a number' }).int(),
  cvc: z.string({ error: 'cvc is required' }).max(8),
  postalCode: z.string().max(12).optional(),
});

export const authenticateBody = z.object({ clientSecret, approve: z.boolean({ error: 'approve must be true or false' }) });

const notFound = () => problem(404, 'not_found', 'Not found.');

/** The rate-limit bucket of one client secret: a hash, so the secret itself is never stored outside its intent. */
const bucketOf = (secret: string) => `test-card:${createHash('sha256').update(secret).digest('hex').slice(0, 32)}`;

function answerFor(error: unknown): Response {
  if (error instanceof IntentNotConfirmableError) return problem(409, error.code, error.message);
  if (error instanceof PaymentsError && error.code === 'intent_not_found') {
    return problem(404, 'payment_not_found', 'This payment could not be found. Please start checkout again.');
  }
  throw error;
}

/**
 * POST /api/test-payments/confirm: the TEST MODE card form charges a test card. Exists only when the test processor
 * is the configured adapter; rate limited per client secret so it cannot be used to try card numbers.
 */
export async function confirmTestCard(deps: TestCardDeps, request: Request): Promise<Response> {
  const { payments } = deps;
  if (!isTestProcessor(payments)) return notFound();
  const body = await readJson(request, confirmBody);
  if ('response' in body) return body.response;
  const { clientSecret: secret, ...card } = body.data;
  const limited = await hit(deps.db, bucketOf(secret), deps.limits.testCardPerIntent);
  if (!limited.ok) return tooManyRequests(limited.retryAfter, 'Too many card attempts. Please wait a moment and try again.');
  try {
    const result = await payments.confirm(secret, card);
    await reportFailure(deps, secret, result);
    return json(result);
  } catch (error) {
    return answerFor(error);
  }
}

/** POST /api/test-payments/authenticate: the shopper completes or fails the 3-D Secure challenge (test processor only). */
export async function authenticateTestCard(deps: TestCardDeps, request: Request): Promise<Response> {
  const { payments } = deps;
  if (!isTestProcessor(payments)) return notFound();
  const body = await readJson(request, authenticateBody);
  if ('response' in body) return body.response;
  try {
    const result = await payments.authenticate(body.data.clientSecret, body.data.approve);
    await reportFailure(deps, body.data.clientSecret, result);
    return json(result);
  } catch (error) {
    return answerFor(error);
  }
}
