import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Database, Sql } from '../db/database.server';
import { asService, serviceStatement } from '../db/roles.server';
import { createdAtOf, intentIdOf, refundOf } from './event-objects';
import {
  IdempotencyKeyReusedError,
  IntentNotFoundError,
  IntentNotUpdatableError,
  type PaymentEvent,
  type PaymentIntent,
  type PaymentIntentStatus,
  PaymentsError,
  type PaymentsPort,
  type Refund,
  type RefundStatus,
  WebhookSignatureError,
} from './payments.port';
import { CARD_MESSAGES, type CardDetails, type CardField, cardOutcome, cardProblem } from './test-cards';

/** What the TEST MODE card form is told after a confirmation or a challenge. */
export interface ConfirmResult {
  status: PaymentIntentStatus;
  /** The card problem, in Stripe's words. */
  error?: string;
  /** The field the problem belongs to, when it is about what was typed. */
  field?: CardField;
  /** The card asks for 3-D Secure: show the challenge, then call authenticate. */
  nextAction?: 'authenticate';
}

/** The embedded default: the port, plus what Stripe.js and Stripe's servers would do in the browser's place. */
export interface TestProcessor extends PaymentsPort {
  readonly name: 'test';
  /** Charges the card for the intent with this client secret, following Stripe's test cards. Never charges twice. */
  confirm(clientSecret: string, card: CardDetails): Promise<ConfirmResult>;
  /** The shopper completes (approve) or fails the 3-D Secure challenge of an intent in requires_action. */
  authenticate(clientSecret: string, approve: boolean): Promise<ConfirmResult>;
}

/** The intent cannot be confirmed or authenticated in its present state (canceled, or no challenge pending). */
export class IntentNotConfirmableError extends PaymentsError {
  constructor(
    readonly status: PaymentIntentStatus,
    message: string,
  ) {
    super('intent_not_confirmable', message);
    this.name = 'IntentNotConfirmableError';
  }
}

/** Whether the configured port is the test processor, whose card form endpoints exist only then. */
export function isTestProcessor(port: PaymentsPort): port is TestProcessor {
  return port.name === 'test' && 'confirm' in port && 'authenticate' in port;
}

/** Stripe's default: a signature older than five minutes is refused, so a captured webhook cannot be replayed later. */
const WEBHOOK_TOLERANCE_SECONDS = 300;

/**
 * Signs a webhook body as the test processor expects it (Stripe's scheme: `t=<seconds>,v1=<HMAC-SHA256 of
 * "t.body">`), for tests and for a developer replaying an event against the embedded default.
 */
export function signTestWebhook(payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex');
  return `t=${timestamp},v1=${signature}`;
}

interface IntentRow {
  id: string;
  client_secret: string;
  amount_cents: number;
  currency: string;
  status: PaymentIntentStatus;
  metadata: Record<string, string>;
  last_error: string | null;
}

interface RefundRow {
  id: string;
  intent_id: string;
  amount_cents: number;
  status: RefundStatus;
}

const INTENT_COLUMNS = 'id, client_secret, amount_cents, currency, status, metadata, last_error';

function toIntent(row: IntentRow): PaymentIntent {
  return {
    id: row.id,
    clientSecret: row.client_secret,
    amountCents: row.amount_cents,
    currency: 'usd',
    status: row.status,
    metadata: row.metadata,
    lastError: row.last_error,
  };
}

function toRefund(row: RefundRow): Refund {
  return { id: row.id, amountCents: row.amount_cents, status: row.status };
}

function checkAmount(amountCents: number): void {
  // Stripe's minimum charge in USD is $0.50, and amounts are integer cents up to eight digits.
  if (!Number.isInteger(amountCents) || amountCents < 50 || amountCents > 99_999_999) {
    throw new PaymentsError('invalid_amount', `Amount must be a whole number of cents from 50 to 99999999, got ${amountCents}.`);
  }
}

const randomId = (prefix: string) => `${prefix}${randomBytes(12).toString('hex')}`;

/** The intent with this id or client secret, locked until the transaction ends so that concurrent changes queue up. */
async function lockIntent(tx: Sql, by: 'id' | 'client_secret', value: string): Promise<IntentRow | undefined> {
  const [row] = await tx.query<IntentRow>(
    `select ${INTENT_COLUMNS} from public.test_payment_intents where ${by === 'id' ? 'id' : 'client_secret'} = $1 for update`,
    [value],
  );
  return row;
}

async function setStatus(tx: Sql, id: string, status: PaymentIntentStatus, lastError: string | null): Promise<IntentRow> {
  const [row] = await tx.query<IntentRow>(
    `update public.test_payment_intents
        set status = $2, last_error = $3,
            succeeded_at = case when $2 = 'succeeded' then coalesce(succeeded_at, now()) else null end
      where id = $1 returning ${INTENT_COLUMNS}`,
    [id, status, lastError],
  );
  if (!row) throw new IntentNotFoundError(id);
  return row;
}

/**
 * The test processor: intents and refunds in our own database (service_role only), Stripe's test cards, Stripe's
 * rules for idempotency keys and for which states may change. Its webhooks are signed like Stripe's with
 * `webhookSecret` (random per process unless given), so the webhook route can be exercised on the embedded default.
 */
export function createTestProcessor(db: Database, options: { webhookSecret?: string; now?: () => Date } = {}): TestProcessor {
  const webhookSecret = options.webhookSecret ?? `whsec_test_${randomBytes(24).toString('hex')}`;
  const now = options.now ?? (() => new Date());

  async function retrieveIntent(id: string): Promise<PaymentIntent> {
    const [row] = await serviceStatement<IntentRow>(
      db,
      `select ${INTENT_COLUMNS} from public.test_payment_intents where id = $1`,
      [id],
    );
    if (!row) throw new IntentNotFoundError(id);
    return toIntent(row);
  }

  return {
    name: 'test',

    async createIntent({ amountCents, metadata, idempotencyKey }) {
      checkAmount(amountCents);
      const id = randomId('pi_test_');
      const secret = `${id}_secret_${randomBytes(16).toString('hex')}`;
      return asService(db, async (tx) => {
        const [created] = await tx.query<IntentRow>(
          `insert into public.test_payment_intents (id, client_secret, amount_cents, metadata, idempotency_key)
           values ($1, $2, $3, $4::text::jsonb, $5)
           on conflict (idempotency_key) do nothing
           returning ${INTENT_COLUMNS}`,
          [id, secret, amountCents, JSON.stringify(metadata), idempotencyKey],
        );
        if (created) return toIntent(created);
        // The key was used before: the same request gets the same intent; another request is a caller's bug.
        const [earlier] = await tx.query<IntentRow & { same: boolean }>(
          `select ${INTENT_COLUMNS}, (amount_cents = $2 and metadata = $3::text::jsonb) as same
             from public.test_payment_intents where idempotency_key = $1`,
          [idempotencyKey, amountCents, JSON.stringify(metadata)],
        );
        if (!earlier?.same) throw new IdempotencyKeyReusedError(idempotencyKey);
        const { same: _, ...row } = earlier;
        return toIntent(row);
      });
    },

    async updateIntent(id, { amountCents, metadata }) {
      checkAmount(amountCents);
      return asService(db, async (tx) => {
        const row = await lockIntent(tx, 'id', id);
        if (!row) throw new IntentNotFoundError(id);
        if (row.status === 'succeeded' || row.status === 'processing' || row.status === 'canceled') {
          throw new IntentNotUpdatableError(id, row.status);
        }
        // A challenge was for the old amount: the card must be confirmed again for the new one.
        const [updated] = await tx.query<IntentRow>(
          `update public.test_payment_intents
              set amount_cents = $2, metadata = metadata || $3::text::jsonb, status = 'requires_payment_method'
            where id = $1 returning ${INTENT_COLUMNS}`,
          [id, amountCents, JSON.stringify(metadata)],
        );
        if (!updated) throw new IntentNotFoundError(id);
        return toIntent(updated);
      });
    },

    retrieveIntent,

    async cancelIntent(id) {
      return asService(db, async (tx) => {
        const row = await lockIntent(tx, 'id', id);
        if (!row) throw new IntentNotFoundError(id);
        if (row.status === 'canceled') return toIntent(row);
        if (row.status === 'succeeded') throw new IntentNotUpdatableError(id, row.status);
        return toIntent(await setStatus(tx, id, 'canceled', row.last_error));
      });
    },

    async refund({ intentId, amountCents, idempotencyKey }) {
      return asService(db, async (tx) => {
        // The intent's lock makes concurrent refunds of one payment queue up, so together they never exceed it.
        const intent = await lockIntent(tx, 'id', intentId);
        if (!intent) throw new IntentNotFoundError(intentId);
        const [earlier] = await tx.query<RefundRow & { requested: number | null }>(
          `select id, intent_id, amount_cents, status, requested_cents as requested
             from public.test_refunds where idempotency_key = $1`,
          [idempotencyKey],
        );
        if (earlier) {
          if (earlier.intent_id !== intentId || (earlier.requested ?? null) !== (amountCents ?? null)) {
            throw new IdempotencyKeyReusedError(idempotencyKey);
          }
          return toRefund(earlier);
        }
        if (intent.status !== 'succeeded') {
          throw new PaymentsError(
            'charge_not_refundable',
            `This PaymentIntent (${intentId}) does not have a successful charge to refund.`,
          );
        }
        const [{ refunded = 0 } = {}] = await tx.query<{ refunded: number }>(
          `select coalesce(sum(amount_cents), 0)::int as refunded from public.test_refunds
            where intent_id = $1 and status in ('pending', 'succeeded')`,
          [intentId],
        );
        const left = intent.amount_cents - refunded;
        const amount = amountCents ?? left;
        if (!Number.isInteger(amount) || amount <= 0 || amount > left) {
          throw new PaymentsError(
            'amount_too_large',
            `Refund amount (${amount} cents) is greater than unrefunded amount on charge (${left} cents).`,
          );
        }
        const [row] = await tx.query<RefundRow>(
          `insert into public.test_refunds (id, intent_id, amount_cents, requested_cents, idempotency_key)
           values ($1, $2, $3, $4, $5) returning id, intent_id, amount_cents, status`,
          [randomId('re_test_'), intentId, amount, amountCents ?? null, idempotencyKey],
        );
        if (!row) throw new PaymentsError('refund_failed', 'The refund was not stored.');
        return toRefund(row);
      });
    },

    parseWebhook(rawBody, signatureHeader): PaymentEvent {
      if (!signatureHeader) throw new WebhookSignatureError('No signature header found on the webhook.');
      const parts = signatureHeader.split(',').map((part) => part.trim().split('='));
      const timestamp = Number(parts.find(([k]) => k === 't')?.[1]);
      const signatures = parts.filter(([k]) => k === 'v1').map(([, v]) => v ?? '');
      if (!Number.isInteger(timestamp) || signatures.length === 0) {
        throw new WebhookSignatureError('Unable to extract timestamp and signatures from the header.');
      }
      const expected = Buffer.from(signTestWebhook(rawBody, webhookSecret, timestamp).split('v1=')[1] ?? '', 'hex');
      const matches = signatures.some((s) => {
        const given = Buffer.from(s, 'hex');
        return given.length === expected.length && timingSafeEqual(given, expected);
      });
      if (!matches) throw new WebhookSignatureError('No signature matches the expected signature for the payload.');
      if (Math.abs(now().getTime() / 1000 - timestamp) > WEBHOOK_TOLERANCE_SECONDS) {
        throw new WebhookSignatureError('Timestamp outside the tolerance zone.');
      }
      return readEvent(rawBody);
    },

    clientConfig: () => ({ kind: 'test' }),

    async confirm(clientSecret, card) {
      return asService(db, async (tx) => {
        const row = await lockIntent(tx, 'client_secret', clientSecret);
        if (!row) throw new PaymentsError('intent_not_found', 'No such payment intent.');
        // Already paid (a double click, a retried request): report it and charge nothing.
        if (row.status === 'succeeded') return { status: 'succeeded' };
        if (row.status === 'canceled' || row.status === 'processing') {
          throw new IntentNotConfirmableError(
            row.status,
            `You cannot confirm this PaymentIntent because it has a status of ${row.status}.`,
          );
        }
        // What Stripe's card field refuses before anything reaches Stripe: the intent is left as it was.
        const problem = cardProblem(card, now());
        if (problem) return { status: row.status, error: problem.message, field: problem.field };

        const outcome = cardOutcome(card.number);
        if (outcome.kind === 'succeed') return { status: (await setStatus(tx, row.id, 'succeeded', null)).status };
        if (outcome.kind === 'authenticate') {
          return { status: (await setStatus(tx, row.id, 'requires_action', null)).status, nextAction: 'authenticate' };
        }
        const failed = await setStatus(tx, row.id, 'requires_payment_method', outcome.message);
        return { status: failed.status, error: outcome.message };
      });
    },

    async authenticate(clientSecret, approve) {
      return asService(db, async (tx) => {
        const row = await lockIntent(tx, 'client_secret', clientSecret);
        if (!row) throw new PaymentsError('intent_not_found', 'No such payment intent.');
        if (row.status === 'succeeded' && approve) return { status: 'succeeded' };
        if (row.status !== 'requires_action') {
          throw new IntentNotConfirmableError(row.status, 'This payment is not waiting for authentication.');
        }
        if (approve) return { status: (await setStatus(tx, row.id, 'succeeded', null)).status };
        const failed = await setStatus(tx, row.id, 'requires_payment_method', CARD_MESSAGES.authenticationFailed);
        return { status: failed.status, error: CARD_MESSAGES.authenticationFailed };
      });
    },
  };
}

/** Reads a verified event body: its id, type, the intent it concerns (the object itself, or a refund's or charge's), and the refund it is. */
function readEvent(rawBody: string): PaymentEvent {
  let event: unknown;
  try {
    event = JSON.parse(rawBody);
  } catch {
    throw new WebhookSignatureError('The webhook body is not JSON.');
  }
  const record = (value: unknown): Record<string, unknown> =>
    typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const { id, type, data, created } = record(event);
  const object = record(record(data).object);
  if (typeof id !== 'string' || typeof type !== 'string') throw new WebhookSignatureError('The webhook body is not an event.');
  return { id, type, createdAt: createdAtOf(created), intentId: intentIdOf(object), refund: refundOf(object) };
}
