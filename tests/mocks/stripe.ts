// A local stand-in for Stripe's API that speaks its wire format for the calls our adapter makes: form-encoded
// bodies with bracketed keys, a Bearer secret key, the Idempotency-Key header (a repeat replays the first answer;
// the same key with other parameters is an idempotency_error), JSON objects shaped like Stripe's, and Stripe's
// error shape. Stripe cannot be reached from these machines; the official SDK is pointed here instead.
// It also takes the one call a browser makes (POST /v1/payment_intents/:id/confirm with the publishable key and the
// intent's client secret, as the end-to-end fake of Stripe.js sends it) and answers with CORS headers as Stripe's
// API does. The card outcomes are a few of Stripe's documented test numbers, written out here on purpose rather than
// taken from the shop's own test-card table, so the shop's table cannot agree with itself.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The form body decoded into nested objects, as Stripe reads it. */
  body: FormValue;
  idempotencyKey: string | null;
}

type FormValue = string | { [key: string]: FormValue };

export type FakeIntentStatus =
  | 'requires_payment_method'
  | 'requires_confirmation'
  | 'requires_action'
  | 'processing'
  | 'requires_capture'
  | 'succeeded'
  | 'canceled';

interface FakeIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_received: number;
  currency: string;
  status: FakeIntentStatus;
  client_secret: string;
  metadata: Record<string, string>;
  last_payment_error: { type: 'card_error'; code: string; decline_code?: string; message: string } | null;
  automatic_payment_methods: { enabled: boolean } | null;
  payment_method_types: string[];
  latest_charge: string | null;
  canceled_at: number | null;
  cancellation_reason: string | null;
  created: number;
  livemode: false;
}

interface FakeRefund {
  id: string;
  object: 'refund';
  amount: number;
  currency: string;
  payment_intent: string;
  charge: string | null;
  status: 'succeeded' | 'pending' | 'failed' | 'canceled';
  reason: string | null;
  metadata: Record<string, string>;
  created: number;
}

export interface FakeStripeOptions {
  /** The secret key the fake accepts (default sk_test_fake). */
  secretKey?: string;
  /** The publishable key a browser confirms with (default pk_test_fake). */
  publishableKey?: string;
  /** Where to listen on 127.0.0.1 (default: a free port). */
  port?: number;
}

export interface FakeStripe {
  /** What to give the SDK: `new Stripe(key, { ...fake.api })`. */
  api: { host: string; port: number; protocol: 'http' };
  /** The same as an origin, for STRIPE_API_BASE. */
  origin: string;
  secretKey: string;
  publishableKey: string;
  requests: RecordedRequest[];
  /** Marks an intent paid, as if the shopper's card was confirmed in the browser. */
  succeed(id: string): void;
  /** Marks a confirmation as declined, with the card's message. */
  decline(id: string, message: string): void;
  /** Moves an intent to any status (processing, requires_action, …) for a test. */
  setStatus(id: string, status: FakeIntentStatus): void;
  intent(id: string): FakeIntent | undefined;
  /** An event as Stripe would send it to a webhook (`data.object` is the intent as it is now), as JSON text. */
  event(type: 'payment_intent.succeeded' | 'payment_intent.payment_failed', id: string): string;
  stop(): Promise<void>;
}

/** What a confirmation with these card numbers does (Stripe's test cards); any other number is refused. */
const CONFIRM_CARDS: Readonly<Record<string, { decline?: { code: string; decline_code?: string; message: string } }>> = {
  '4242424242424242': {},
  '5555555555554444': {},
  '4000000000000002': { decline: { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' } },
  '4000000000009995': {
    decline: { code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  },
};

/** Stripe's API answers browsers from any origin (the publishable key is public). */
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type, stripe-version, idempotency-key',
  'access-control-max-age': '300',
};

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: { type: string; message: string; code?: string; param?: string; payment_intent?: FakeIntent },
  ) {
    super(body.message);
  }
}

/** Decodes `a[b][c]=1&list[0]=x` into nested objects, as Stripe's API does. */
function decodeForm(text: string): FormValue {
  const root: { [key: string]: FormValue } = {};
  for (const [name, value] of new URLSearchParams(text)) {
    const path = name.split(/\[|\]\[|\]/).filter((part) => part !== '');
    let node = root;
    path.forEach((part, i) => {
      if (i === path.length - 1) {
        node[part] = value;
        return;
      }
      const next = node[part];
      if (typeof next === 'object') node = next;
      else {
        const created: { [key: string]: FormValue } = {};
        node[part] = created;
        node = created;
      }
    });
  }
  return root;
}

const field = (body: FormValue, key: string): FormValue | undefined => (typeof body === 'object' ? body[key] : undefined);
const text = (body: FormValue, key: string): string | undefined => {
  const value = field(body, key);
  return typeof value === 'string' ? value : undefined;
};
const strings = (value: FormValue | undefined): Record<string, string> =>
  typeof value === 'object'
    ? Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'))
    : {};

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

function amountOf(body: FormValue, required: boolean): number | undefined {
  const raw = text(body, 'amount');
  if (raw === undefined) {
    if (required)
      throw new ApiError(400, {
        type: 'invalid_request_error',
        code: 'parameter_missing',
        param: 'amount',
        message: 'Missing required param: amount.',
      });
    return undefined;
  }
  const amount = Number(raw);
  if (!/^\d+$/.test(raw)) {
    throw new ApiError(400, {
      type: 'invalid_request_error',
      code: 'parameter_invalid_integer',
      param: 'amount',
      message: `Invalid integer: ${raw}`,
    });
  }
  if (amount < 50) {
    throw new ApiError(400, {
      type: 'invalid_request_error',
      code: 'amount_too_small',
      param: 'amount',
      message: 'Amount must be at least $0.50 usd',
    });
  }
  return amount;
}

function unexpectedState(intent: FakeIntent, message: string): ApiError {
  return new ApiError(400, {
    type: 'invalid_request_error',
    code: 'payment_intent_unexpected_state',
    message,
    payment_intent: intent,
  });
}

/** Starts the fake on a free port of 127.0.0.1. */
export async function startFakeStripe(options: FakeStripeOptions = {}): Promise<FakeStripe> {
  const secretKey = options.secretKey ?? 'sk_test_fake';
  const publishableKey = options.publishableKey ?? 'pk_test_fake';
  const intents = new Map<string, FakeIntent>();
  const refunds = new Map<string, FakeRefund>();
  const idempotent = new Map<string, { fingerprint: string; status: number; body: unknown }>();
  const requests: RecordedRequest[] = [];

  function findIntent(intentId: string, param = 'intent'): FakeIntent {
    const intent = intents.get(intentId);
    if (!intent) {
      throw new ApiError(404, {
        type: 'invalid_request_error',
        code: 'resource_missing',
        param,
        message: `No such payment_intent: '${intentId}'`,
      });
    }
    return intent;
  }

  function route(method: string, path: string, body: FormValue): unknown {
    if (method === 'POST' && path === '/v1/payment_intents') {
      const amount = amountOf(body, true) ?? 0;
      const currency = text(body, 'currency');
      if (!currency)
        throw new ApiError(400, {
          type: 'invalid_request_error',
          code: 'parameter_missing',
          param: 'currency',
          message: 'Missing required param: currency.',
        });
      const intentId = id('pi');
      const automatic = field(body, 'automatic_payment_methods');
      const intent: FakeIntent = {
        id: intentId,
        object: 'payment_intent',
        amount,
        amount_received: 0,
        currency,
        status: 'requires_payment_method',
        client_secret: `${intentId}_secret_${randomBytes(12).toString('hex')}`,
        metadata: strings(field(body, 'metadata')),
        last_payment_error: null,
        automatic_payment_methods: automatic ? { enabled: text(automatic, 'enabled') === 'true' } : null,
        payment_method_types: ['card'],
        latest_charge: null,
        canceled_at: null,
        cancellation_reason: null,
        created: now(),
        livemode: false,
      };
      intents.set(intentId, intent);
      return intent;
    }
    if (method === 'POST' && path === '/v1/refunds') {
      const intentId = text(body, 'payment_intent');
      if (!intentId)
        throw new ApiError(400, {
          type: 'invalid_request_error',
          code: 'parameter_missing',
          param: 'payment_intent',
          message: 'Missing required param: payment_intent.',
        });
      const intent = findIntent(intentId, 'payment_intent');
      if (intent.status !== 'succeeded') {
        throw new ApiError(400, {
          type: 'invalid_request_error',
          message: `This PaymentIntent (${intentId}) does not have a successful charge to refund.`,
        });
      }
      const refunded = [...refunds.values()]
        .filter((r) => r.payment_intent === intentId && r.status !== 'failed' && r.status !== 'canceled')
        .reduce((sum, r) => sum + r.amount, 0);
      const left = intent.amount_received - refunded;
      const raw = text(body, 'amount');
      const amount = raw === undefined ? left : Number(raw);
      if (amount <= 0 || amount > left) {
        throw new ApiError(400, {
          type: 'invalid_request_error',
          code: 'amount_too_large',
          param: 'amount',
          message: `Refund amount ($${(amount / 100).toFixed(2)}) is greater than unrefunded amount on charge ($${(left / 100).toFixed(2)})`,
        });
      }
      const refund: FakeRefund = {
        id: id('re'),
        object: 'refund',
        amount,
        currency: intent.currency,
        payment_intent: intentId,
        charge: intent.latest_charge,
        status: 'succeeded',
        reason: text(body, 'reason') ?? null,
        metadata: strings(field(body, 'metadata')),
        created: now(),
      };
      refunds.set(refund.id, refund);
      return refund;
    }
    const confirming = /^\/v1\/payment_intents\/([^/]+)\/confirm$/.exec(path);
    if (method === 'POST' && confirming?.[1]) return confirm(findIntent(decodeURIComponent(confirming[1])), body);
    const match = /^\/v1\/payment_intents\/([^/]+)(\/cancel)?$/.exec(path);
    if (match?.[1]) {
      const intent = findIntent(decodeURIComponent(match[1]));
      if (method === 'GET' && !match[2]) return intent;
      if (method === 'POST' && match[2]) {
        if (intent.status === 'succeeded' || intent.status === 'canceled') {
          throw unexpectedState(
            intent,
            `You cannot cancel this PaymentIntent because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be canceled: requires_payment_method, requires_capture, requires_confirmation, requires_action, processing.`,
          );
        }
        Object.assign(intent, {
          status: 'canceled',
          canceled_at: now(),
          cancellation_reason: text(body, 'cancellation_reason') ?? null,
        });
        return intent;
      }
      if (method === 'POST') {
        const amount = amountOf(body, false);
        if (
          amount !== undefined &&
          !['requires_payment_method', 'requires_confirmation', 'requires_action'].includes(intent.status)
        ) {
          throw unexpectedState(
            intent,
            `This PaymentIntent's amount could not be updated because it has a status of ${intent.status}. You may only update the amount of a PaymentIntent with one of the following statuses: requires_payment_method, requires_confirmation, requires_action.`,
          );
        }
        if (amount !== undefined) intent.amount = amount;
        // Stripe merges metadata; an empty value removes the key.
        for (const [key, value] of Object.entries(strings(field(body, 'metadata')))) {
          if (value === '') delete intent.metadata[key];
          else intent.metadata[key] = value;
        }
        return intent;
      }
    }
    throw new ApiError(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` });
  }

  /**
   * Confirms an intent with a card, as Stripe.js does from the browser: the card's details in payment_method_data,
   * the intent's client secret (required with a publishable key). A declined card is HTTP 402 with a card_error that
   * carries the intent, now back in requires_payment_method with last_payment_error set.
   */
  function confirm(intent: FakeIntent, body: FormValue): FakeIntent {
    if (!['requires_payment_method', 'requires_confirmation', 'requires_action'].includes(intent.status)) {
      throw unexpectedState(
        intent,
        intent.status === 'succeeded'
          ? 'You cannot confirm this PaymentIntent because it has already succeeded after being previously confirmed.'
          : `You cannot confirm this PaymentIntent because it has a status of ${intent.status}.`,
      );
    }
    const data = field(body, 'payment_method_data');
    const card = data === undefined ? undefined : field(data, 'card');
    const number = card === undefined ? undefined : text(card, 'number')?.replace(/\s/g, '');
    if (!data || text(data, 'type') !== 'card' || !number) {
      throw new ApiError(400, {
        type: 'invalid_request_error',
        code: 'parameter_missing',
        param: 'payment_method_data[card][number]',
        message: 'Missing required param: payment_method_data[card][number].',
      });
    }
    const known = CONFIRM_CARDS[number];
    const decline = known ? known.decline : { code: 'incorrect_number', message: 'Your card number is incorrect.' };
    if (decline) {
      Object.assign(intent, { status: 'requires_payment_method', last_payment_error: { type: 'card_error', ...decline } });
      throw new ApiError(402, { type: 'card_error', ...decline, payment_intent: structuredClone(intent) });
    }
    Object.assign(intent, {
      status: 'succeeded',
      amount_received: intent.amount,
      latest_charge: id('ch'),
      last_payment_error: null,
    });
    return intent;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const body = method === 'GET' ? {} : decodeForm(raw);
    const idempotencyKey = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : null;
    requests.push({ method, path, headers: req.headers, body, idempotencyKey });

    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req'), ...CORS, ...headers });
      res.end(JSON.stringify(payload));
    };
    if (method === 'OPTIONS') {
      res.writeHead(204, CORS);
      res.end();
      return;
    }

    // The secret key as a Bearer token (the SDK), or the publishable key as a Bearer token or as the form's `key`
    // (Stripe.js); a publishable key may only confirm, and only with the intent's client secret.
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? text(body, 'key');
    const publishable = bearer === publishableKey;
    if (bearer !== secretKey && !publishable) {
      send(401, {
        error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' },
      });
      return;
    }
    if (publishable) {
      const confirming = /^\/v1\/payment_intents\/([^/]+)\/confirm$/.exec(path);
      const intent = confirming?.[1] ? intents.get(decodeURIComponent(confirming[1])) : undefined;
      if (method !== 'POST' || !confirming) {
        send(401, {
          error: {
            type: 'invalid_request_error',
            message: 'This API call cannot be made with a publishable API key. Please use a secret API key.',
          },
        });
        return;
      }
      if (intent && text(body, 'client_secret') !== intent.client_secret) {
        send(400, {
          error: {
            type: 'invalid_request_error',
            code: 'payment_intent_invalid_parameter',
            param: 'client_secret',
            message: 'The client_secret provided does not match the client_secret associated with the PaymentIntent.',
          },
        });
        return;
      }
    }
    // Stripe keeps the first answer under the key and replays it; a key sent with other parameters is refused.
    const fingerprint = `${method} ${path} ${raw}`;
    if (idempotencyKey && method === 'POST') {
      const earlier = idempotent.get(idempotencyKey);
      if (earlier) {
        if (earlier.fingerprint !== fingerprint) {
          send(400, {
            error: {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
            },
          });
          return;
        }
        send(earlier.status, earlier.body, { 'idempotent-replayed': 'true' });
        return;
      }
    }
    let status = 200;
    let payload: unknown;
    try {
      payload = structuredClone(route(method, path, body));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      status = error.status;
      payload = { error: error.body };
    }
    if (idempotencyKey && method === 'POST') idempotent.set(idempotencyKey, { fingerprint, status, body: payload });
    send(status, payload);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'api_error', message: String(error) } }));
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const mustFind = (intentId: string): FakeIntent => {
    const intent = intents.get(intentId);
    if (!intent) throw new Error(`The fake Stripe has no intent ${intentId}`);
    return intent;
  };

  return {
    api: { host: '127.0.0.1', port, protocol: 'http' },
    origin: `http://127.0.0.1:${port}`,
    secretKey,
    publishableKey,
    requests,
    succeed(intentId) {
      const intent = mustFind(intentId);
      Object.assign(intent, {
        status: 'succeeded',
        amount_received: intent.amount,
        latest_charge: id('ch'),
        last_payment_error: null,
      });
    },
    decline(intentId, message) {
      Object.assign(mustFind(intentId), {
        status: 'requires_payment_method',
        last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message },
      });
    },
    setStatus(intentId, status) {
      mustFind(intentId).status = status;
    },
    intent: (intentId) => intents.get(intentId),
    event(type, intentId) {
      return JSON.stringify({
        id: id('evt'),
        object: 'event',
        api_version: '2026-10-28.endive',
        created: now(),
        type,
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        data: { object: structuredClone(mustFind(intentId)) },
      });
    },
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // The SDK keeps connections alive; close them, or close() waits for them to time out.
        server.closeAllConnections();
      }),
  };
}
