/**
 * The payments port, in the app's own terms. The embedded default is the test processor (intents in our database,
 * Stripe's test cards); production is Stripe. No vendor type crosses this file: each adapter maps to these.
 *
 * How it is used: the server computes the total, creates an intent for exactly that amount (with an idempotency key
 * and metadata naming the checkout), the browser confirms the card with the client secret, and the server then
 * RETRIEVES the intent and trusts only its status, amount and currency, never what the browser says happened.
 */

/** Where an intent stands. Stripe's other states (requires_confirmation, requires_capture) never occur: we create
 * intents that the browser confirms and that capture automatically. */
export type PaymentIntentStatus = 'requires_payment_method' | 'requires_action' | 'processing' | 'succeeded' | 'canceled';

export interface PaymentIntent {
  id: string;
  /** Handed to the browser only, to confirm the card; never logged. */
  clientSecret: string;
  amountCents: number;
  currency: 'usd';
  status: PaymentIntentStatus;
  metadata: Record<string, string>;
  /** The last card problem in the processor's words (shown after 'Payment failed: '), or null. */
  lastError: string | null;
}

export type RefundStatus = 'pending' | 'succeeded' | 'failed' | 'canceled';

export interface Refund {
  id: string;
  amountCents: number;
  status: RefundStatus;
}

/**
 * A verified webhook event: its id (to record it once), its type, the intent it is about when there is one, and the
 * refund when it is about one (a refund can fail days after it was made).
 */
export interface PaymentEvent {
  id: string;
  type: string;
  /** When the processor created the event (whole seconds), or null when it does not say. */
  createdAt: Date | null;
  intentId: string | null;
  refund: { id: string; status: RefundStatus } | null;
}

/**
 * Where the order ships, given with the payment: Stripe shows it on the payment and its fraud checks compare it with
 * the card's. The test processor keeps no copy (the order holds the address).
 */
export interface PaymentShipping {
  name: string;
  line1: string;
  /** The apartment or suite, when there is one. */
  line2?: string;
  city: string;
  state: string;
  postalCode: string;
  country: 'US';
}

/** What the browser needs to show the card form: our TEST MODE form, or Stripe's Payment Element. */
export type PaymentsClientConfig = { kind: 'test' } | { kind: 'stripe'; publishableKey: string };

export interface PaymentsPort {
  /** Which adapter answers, for the start-up log line and the client config. */
  readonly name: 'test' | 'stripe';
  /**
   * Creates an intent for exactly `amountCents` (USD). The same idempotency key with the same parameters returns the
   * same intent; with different parameters it throws IdempotencyKeyReusedError, as Stripe does.
   */
  createIntent(input: {
    amountCents: number;
    metadata: Record<string, string>;
    idempotencyKey: string;
    shipping?: PaymentShipping;
  }): Promise<PaymentIntent>;
  /**
   * Changes the amount (and sets the given metadata keys; others are kept, as Stripe merges metadata) while the
   * intent can still change. A succeeded, processing or canceled intent throws IntentNotUpdatableError: the caller
   * then creates a new intent instead.
   */
  updateIntent(
    id: string,
    input: { amountCents: number; metadata: Record<string, string>; shipping?: PaymentShipping },
  ): Promise<PaymentIntent>;
  /** The intent as the processor knows it now. Throws IntentNotFoundError for an unknown id. */
  retrieveIntent(id: string): Promise<PaymentIntent>;
  /** Cancels an unpaid intent (an already canceled one is returned as it is); a succeeded one throws IntentNotUpdatableError. */
  cancelIntent(id: string): Promise<PaymentIntent>;
  /** Refunds a succeeded intent, all of what is left when no amount is given. Idempotent by key, like createIntent. */
  refund(input: { intentId: string; amountCents?: number; idempotencyKey: string }): Promise<Refund>;
  /** Verifies a webhook's signature on the raw body and reads it; throws WebhookSignatureError when it does not verify. */
  parseWebhook(rawBody: string, signatureHeader: string | null): PaymentEvent;
  /** What the browser is told about the adapter (never a secret). */
  clientConfig(): PaymentsClientConfig;
}

/** A request the processor refused; `code` is stable for callers, `message` is fit for a log. */
export class PaymentsError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'PaymentsError';
  }
}

/** The intent has gone past the point where it can change (succeeded, processing, canceled): create a new one. */
export class IntentNotUpdatableError extends PaymentsError {
  constructor(
    readonly intentId: string,
    readonly status: PaymentIntentStatus,
  ) {
    super('intent_not_updatable', `Payment intent ${intentId} has status ${status} and can no longer be changed.`);
    this.name = 'IntentNotUpdatableError';
  }
}

/** An idempotency key was sent again with other parameters: a bug in the caller, never retried. */
export class IdempotencyKeyReusedError extends PaymentsError {
  constructor(key: string) {
    super(
      'idempotency_key_reused',
      `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
    );
    this.name = 'IdempotencyKeyReusedError';
  }
}

export class IntentNotFoundError extends PaymentsError {
  constructor(id: string) {
    super('intent_not_found', `No such payment_intent: '${id}'`);
    this.name = 'IntentNotFoundError';
  }
}

/** A webhook whose signature is missing, wrong or stale: answer 400 and change nothing. */
export class WebhookSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookSignatureError';
  }
}
