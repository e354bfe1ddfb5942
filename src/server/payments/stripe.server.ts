import Stripe from 'stripe';
import { createdAtOf, intentIdOf, refundOf, refundStatusOf } from './event-objects';
import {
  IdempotencyKeyReusedError,
  IntentNotFoundError,
  IntentNotUpdatableError,
  type PaymentIntent,
  type PaymentIntentStatus,
  type PaymentShipping,
  PaymentsError,
  type PaymentsPort,
  type Refund,
  WebhookSignatureError,
} from './payments.port';

export interface StripeOptions {
  secretKey: string;
  publishableKey: string;
  webhookSecret: string;
  /** Where the API answers: Stripe itself unless given (contract tests point it at a local server). */
  api?: { host: string; port: number; protocol: 'http' | 'https' };
}

const STATUSES: readonly PaymentIntentStatus[] = [
  'requires_payment_method',
  'requires_action',
  'processing',
  'succeeded',
  'canceled',
];

/** Where the order ships, in Stripe's shape (line2 only when there is one: Stripe keeps an empty string as given). */
function stripeShipping(s: PaymentShipping): Stripe.PaymentIntentCreateParams.Shipping {
  return {
    name: s.name,
    address: {
      line1: s.line1,
      ...(s.line2 ? { line2: s.line2 } : {}),
      city: s.city,
      state: s.state,
      postal_code: s.postalCode,
      country: s.country,
    },
  };
}

/** Stripe's intent in our terms. States we never create intents in are read as the nearest of ours. */
function toIntent(pi: Stripe.PaymentIntent): PaymentIntent {
  if (pi.currency !== 'usd') throw new PaymentsError('unexpected_currency', `Payment intent ${pi.id} is in ${pi.currency}.`);
  const status: PaymentIntentStatus = (STATUSES as readonly string[]).includes(pi.status)
    ? (pi.status as PaymentIntentStatus)
    : // requires_confirmation: not yet confirmed; requires_capture: authorised but not captured (not paid yet).
      pi.status === 'requires_capture'
      ? 'processing'
      : 'requires_payment_method';
  return {
    id: pi.id,
    clientSecret: pi.client_secret ?? '',
    amountCents: pi.amount,
    currency: 'usd',
    status,
    metadata: { ...pi.metadata },
    lastError: pi.last_payment_error?.message ?? null,
  };
}

function toRefund(refund: Stripe.Refund): Refund {
  return { id: refund.id, amountCents: refund.amount, status: refundStatusOf(refund.status) };
}

/**
 * Maps Stripe's errors to the port's. Anything else (network, authentication, rate limits) is rethrown as it is:
 * the caller answers 'Payment processing failed' and the idempotency key makes a retry safe.
 */
function translate(error: unknown, context: { intentId?: string; idempotencyKey?: string }): never {
  if (error instanceof Stripe.errors.StripeIdempotencyError && context.idempotencyKey) {
    throw new IdempotencyKeyReusedError(context.idempotencyKey);
  }
  if (error instanceof Stripe.errors.StripeInvalidRequestError) {
    if (error.code === 'resource_missing' && context.intentId) throw new IntentNotFoundError(context.intentId);
    if (error.code === 'payment_intent_unexpected_state' && context.intentId) {
      const status = error.payment_intent?.status;
      throw new IntentNotUpdatableError(
        context.intentId,
        status && (STATUSES as readonly string[]).includes(status) ? (status as PaymentIntentStatus) : 'succeeded',
      );
    }
    throw new PaymentsError(error.code ?? 'invalid_request', error.message);
  }
  throw error;
}

/** The production payments adapter: Stripe PaymentIntents, refunds and signed webhooks, in the port's terms. */
export function createStripePayments(options: StripeOptions): PaymentsPort {
  const stripe = new Stripe(options.secretKey, {
    // Requests are idempotent by key (creates) or by nature (retrieve, update), so a retry is safe.
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
    ...(options.api ?? {}),
  });

  return {
    name: 'stripe',

    async createIntent({ amountCents, metadata, idempotencyKey, shipping }) {
      try {
        const pi = await stripe.paymentIntents.create(
          {
            amount: amountCents,
            currency: 'usd',
            automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
            metadata,
            ...(shipping ? { shipping: stripeShipping(shipping) } : {}),
          },
          { idempotencyKey },
        );
        return toIntent(pi);
      } catch (error) {
        translate(error, { idempotencyKey });
      }
    },

    async updateIntent(id, { amountCents, metadata, shipping }) {
      try {
        return toIntent(
          await stripe.paymentIntents.update(id, {
            amount: amountCents,
            metadata,
            ...(shipping ? { shipping: stripeShipping(shipping) } : {}),
          }),
        );
      } catch (error) {
        translate(error, { intentId: id });
      }
    },

    async retrieveIntent(id) {
      try {
        return toIntent(await stripe.paymentIntents.retrieve(id));
      } catch (error) {
        translate(error, { intentId: id });
      }
    },

    async cancelIntent(id) {
      try {
        return toIntent(await stripe.paymentIntents.cancel(id));
      } catch (error) {
        // Stripe refuses to cancel twice; for the port an already canceled intent is simply canceled.
        if (error instanceof Stripe.errors.StripeInvalidRequestError && error.payment_intent?.status === 'canceled') {
          return toIntent(error.payment_intent);
        }
        translate(error, { intentId: id });
      }
    },

    async refund({ intentId, amountCents, idempotencyKey }) {
      try {
        const refund = await stripe.refunds.create(
          { payment_intent: intentId, ...(amountCents === undefined ? {} : { amount: amountCents }) },
          { idempotencyKey },
        );
        return toRefund(refund);
      } catch (error) {
        translate(error, { intentId, idempotencyKey });
      }
    },

    parseWebhook(rawBody, signatureHeader) {
      if (!signatureHeader) throw new WebhookSignatureError('No Stripe-Signature header on the webhook.');
      let event: Stripe.Event;
      try {
        // Default tolerance (300 s): a stale signature is refused, so a captured event cannot be replayed later.
        event = stripe.webhooks.constructEvent(rawBody, signatureHeader, options.webhookSecret);
      } catch (error) {
        if (error instanceof Stripe.errors.StripeSignatureVerificationError) throw new WebhookSignatureError(error.message);
        throw new WebhookSignatureError(error instanceof Error ? error.message : 'The webhook could not be read.');
      }
      const object: unknown = event.data.object;
      return {
        id: event.id,
        type: event.type,
        createdAt: createdAtOf(event.created),
        intentId: intentIdOf(object),
        refund: refundOf(object),
      };
    },

    clientConfig: () => ({ kind: 'stripe', publishableKey: options.publishableKey }),
  };
}
