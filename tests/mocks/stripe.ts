// A local stand-in for Stripe's API that speaks its wire format for the calls our adapter makes: form-encoded
// bodies with bracketed keys, a Bearer secret key, the Idempotency-Key header (a repeat replays the first answer;
// the same key with other parameters is an idempotency_error), JSON objects shaped like Stripe's, and Stripe's
// error shape. Stripe cannot be reached from these machines; the official SDK is pointed here instead.
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

export interface FakeStripe {
  /** What to give the SDK: `new Stripe(key, { ...fake.api })`. */
  api: { host: string; port: number; protocol: 'http' };
  secretKey: string;
  requests: RecordedRequest[];
  /** Marks an intent paid, as if the shopper's card was confirmed in the browser. */
  succeed(id: string): void;
  /** Marks a confirmation as declined, with the card's message. */
  decline(id: string, message: string): void;
  /** Moves an intent to any status (processing, requires_action, …) for a test. */
  setStatus(id: string, status: FakeIntentStatus): void;
  intent(id: string): FakeIntent | undefined;
  stop(): Promise<void>;
}

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
export async function startFakeStripe(): Promise<FakeStripe> {
  const secretKey = 'sk_test_fake';
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
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req'), ...headers });
      res.end(JSON.stringify(payload));
    };

    if (req.headers.authorization !== `Bearer ${secretKey}`) {
      send(401, {
        error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' },
      });
      return;
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const mustFind = (intentId: string): FakeIntent => {
    const intent = intents.get(intentId);
    if (!intent) throw new Error(`The fake Stripe has no intent ${intentId}`);
    return intent;
  };

  return {
    api: { host: '127.0.0.1', port, protocol: 'http' },
    secretKey,
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
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // The SDK keeps connections alive; close them, or close() waits for them to time out.
        server.closeAllConnections();
      }),
  };
}
