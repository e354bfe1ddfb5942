// The Stripe adapter through the official SDK against a local server that speaks Stripe's wire format: what the
// adapter sends (form fields, idempotency keys) and how it reads Stripe's answers and errors into the port's types.
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordOrder } from '@/features/checkout/order.server';
import { quoteRates } from '@/features/checkout/rates.server';
import { startCheckout } from '@/features/checkout/start-checkout.server';
import { taxCents } from '@/lib/pricing';
import type { Database } from '@/server/db/database.server';
import {
  IdempotencyKeyReusedError,
  IntentNotFoundError,
  IntentNotUpdatableError,
  PaymentsError,
  type PaymentsPort,
  WebhookSignatureError,
} from '@/server/payments/payments.port';
import { createStripePayments } from '@/server/payments/stripe.server';
import { createRateTableShipping } from '@/server/shipping/rate-table.server';
import { freshDatabase } from '../db/test-database';
import { type FakeStripe, startFakeStripe } from '../mocks/stripe';
import { loadCatalogueIndex } from '../unit/load-catalogue';

const WEBHOOK_SECRET = 'whsec_contract_test';

let fake: FakeStripe;
let payments: PaymentsPort;
let n = 0;
const key = (what: string) => `${what}-${++n}`;

beforeAll(async () => {
  fake = await startFakeStripe();
  payments = createStripePayments({
    secretKey: fake.secretKey,
    publishableKey: 'pk_test_contract',
    webhookSecret: WEBHOOK_SECRET,
    api: fake.api,
  });
});
afterAll(() => fake?.stop());

const lastRequest = () => {
  const request = fake.requests.at(-1);
  if (!request) throw new Error('no request reached the fake Stripe');
  return request;
};

describe('the Stripe adapter against a local Stripe', () => {
  it('creates a USD intent for exactly the amount, with automatic payment methods, metadata and the idempotency key', async () => {
    const idempotencyKey = key('create');
    const intent = await payments.createIntent({
      amountCents: 10_890,
      metadata: { checkout: 'chk_1', hash: 'abc' },
      idempotencyKey,
    });
    expect(lastRequest()).toMatchObject({
      method: 'POST',
      path: '/v1/payment_intents',
      idempotencyKey,
      body: {
        amount: '10890',
        currency: 'usd',
        automatic_payment_methods: { enabled: 'true', allow_redirects: 'never' },
        metadata: { checkout: 'chk_1', hash: 'abc' },
      },
    });
    expect(intent).toEqual({
      id: expect.stringMatching(/^pi_/),
      clientSecret: expect.stringMatching(/_secret_/),
      amountCents: 10_890,
      currency: 'usd',
      status: 'requires_payment_method',
      metadata: { checkout: 'chk_1', hash: 'abc' },
      lastError: null,
    });
  });

  it('sends where the order ships, apartment or suite included, on create and on update', async () => {
    const shipping = {
      name: 'Maya Thompson',
      line1: '1 Main St',
      line2: 'Apt 4B',
      city: 'Savannah',
      state: 'GA',
      postalCode: '31401',
      country: 'US' as const,
    };
    const intent = await payments.createIntent({ amountCents: 2_500, metadata: {}, idempotencyKey: key('create'), shipping });
    const stripeShipping = {
      name: 'Maya Thompson',
      address: { line1: '1 Main St', line2: 'Apt 4B', city: 'Savannah', state: 'GA', postal_code: '31401', country: 'US' },
    };
    expect(lastRequest()).toMatchObject({ path: '/v1/payment_intents', body: { shipping: stripeShipping } });
    const { line2: _, ...noSuite } = shipping;
    await payments.updateIntent(intent.id, { amountCents: 2_600, metadata: {}, shipping: noSuite });
    const update = lastRequest() as unknown as { body: { shipping: { address: Record<string, string> } } };
    expect(update).toMatchObject({ path: `/v1/payment_intents/${intent.id}`, body: { amount: '2600' } });
    expect(update.body.shipping.address).toEqual({
      line1: '1 Main St',
      city: 'Savannah',
      state: 'GA',
      postal_code: '31401',
      country: 'US',
    });
  });

  it('replays a retried create (same key) and refuses the key with other parameters', async () => {
    const idempotencyKey = key('create');
    const input = { amountCents: 2_500, metadata: { checkout: 'chk_2' }, idempotencyKey };
    const first = await payments.createIntent(input);
    expect(await payments.createIntent(input)).toEqual(first);
    await expect(payments.createIntent({ ...input, amountCents: 2_600 })).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
  });

  it('retrieves an intent as Stripe has it now: paid, or declined with the card’s message', async () => {
    const paid = await payments.createIntent({ amountCents: 5_000, metadata: {}, idempotencyKey: key('create') });
    fake.succeed(paid.id);
    expect(await payments.retrieveIntent(paid.id)).toMatchObject({ id: paid.id, status: 'succeeded', amountCents: 5_000 });
    expect(lastRequest()).toMatchObject({ method: 'GET', path: `/v1/payment_intents/${paid.id}` });

    const declined = await payments.createIntent({ amountCents: 5_000, metadata: {}, idempotencyKey: key('create') });
    fake.decline(declined.id, 'Your card was declined.');
    expect(await payments.retrieveIntent(declined.id)).toMatchObject({
      status: 'requires_payment_method',
      lastError: 'Your card was declined.',
    });

    await expect(payments.retrieveIntent('pi_missing')).rejects.toBeInstanceOf(IntentNotFoundError);
  });

  it('updates the amount and metadata while unpaid; refuses once paid or processing, so the caller replaces it', async () => {
    const intent = await payments.createIntent({
      amountCents: 5_000,
      metadata: { checkout: 'chk_3' },
      idempotencyKey: key('create'),
    });
    const updated = await payments.updateIntent(intent.id, { amountCents: 6_000, metadata: { hash: 'two' } });
    expect(lastRequest()).toMatchObject({
      method: 'POST',
      path: `/v1/payment_intents/${intent.id}`,
      body: { amount: '6000', metadata: { hash: 'two' } },
    });
    expect(updated).toMatchObject({ amountCents: 6_000, metadata: { checkout: 'chk_3', hash: 'two' } });

    fake.setStatus(intent.id, 'processing');
    await expect(payments.updateIntent(intent.id, { amountCents: 7_000, metadata: {} })).rejects.toMatchObject({
      constructor: IntentNotUpdatableError,
      status: 'processing',
    });
    fake.succeed(intent.id);
    const refused = payments.updateIntent(intent.id, { amountCents: 7_000, metadata: {} });
    await expect(refused).rejects.toBeInstanceOf(IntentNotUpdatableError);
    await expect(refused).rejects.toMatchObject({ status: 'succeeded', intentId: intent.id });
    expect(fake.intent(intent.id)?.amount).toBe(6_000);
  });

  it('cancels an unpaid intent (again is fine) and refuses to cancel a paid one', async () => {
    const intent = await payments.createIntent({ amountCents: 5_000, metadata: {}, idempotencyKey: key('create') });
    expect((await payments.cancelIntent(intent.id)).status).toBe('canceled');
    expect(lastRequest()).toMatchObject({ method: 'POST', path: `/v1/payment_intents/${intent.id}/cancel` });
    expect((await payments.cancelIntent(intent.id)).status).toBe('canceled');

    const paid = await payments.createIntent({ amountCents: 5_000, metadata: {}, idempotencyKey: key('create') });
    fake.succeed(paid.id);
    await expect(payments.cancelIntent(paid.id)).rejects.toBeInstanceOf(IntentNotUpdatableError);
  });

  it('refunds through the port with an idempotency key: part, the rest, never more', async () => {
    const intent = await payments.createIntent({ amountCents: 10_000, metadata: {}, idempotencyKey: key('create') });
    fake.succeed(intent.id);
    const idempotencyKey = key('refund');
    const part = await payments.refund({ intentId: intent.id, amountCents: 2_500, idempotencyKey });
    expect(lastRequest()).toMatchObject({
      method: 'POST',
      path: '/v1/refunds',
      idempotencyKey,
      body: { payment_intent: intent.id, amount: '2500' },
    });
    expect(part).toEqual({ id: expect.stringMatching(/^re_/), amountCents: 2_500, status: 'succeeded' });
    // A retry of the same refund is the same refund, not a second one.
    expect(await payments.refund({ intentId: intent.id, amountCents: 2_500, idempotencyKey })).toEqual(part);

    const rest = await payments.refund({ intentId: intent.id, idempotencyKey: key('refund') });
    expect(rest.amountCents).toBe(7_500);
    expect(lastRequest().body).toEqual({ payment_intent: intent.id });
    await expect(payments.refund({ intentId: intent.id, amountCents: 1, idempotencyKey: key('refund') })).rejects.toBeInstanceOf(
      PaymentsError,
    );
  });

  it('sends the secret key as a Bearer token and tells the browser only the publishable key', async () => {
    const intent = await payments.createIntent({ amountCents: 1_000, metadata: {}, idempotencyKey: key('create') });
    expect(fake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${fake.secretKey}`);
    expect(payments.clientConfig()).toEqual({ kind: 'stripe', publishableKey: 'pk_test_contract' });
    expect(JSON.stringify(payments.clientConfig())).not.toContain(fake.secretKey);
    expect(intent.id).toMatch(/^pi_/);
  });
});

describe('Stripe webhooks', () => {
  const event = (intentId: string) =>
    JSON.stringify({
      id: 'evt_1',
      object: 'event',
      created: 1_764_400_000,
      type: 'payment_intent.succeeded',
      data: { object: { id: intentId, object: 'payment_intent', amount: 10_890, currency: 'usd', status: 'succeeded' } },
    });

  it('reads a correctly signed event: its id, type, time and intent', () => {
    const payload = event('pi_123');
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    expect(payments.parseWebhook(payload, header)).toEqual({
      id: 'evt_1',
      type: 'payment_intent.succeeded',
      createdAt: new Date(1_764_400_000_000),
      intentId: 'pi_123',
      refund: null,
    });
  });

  it('finds the intent of a refund or charge event too', () => {
    const payload = JSON.stringify({
      id: 'evt_2',
      object: 'event',
      type: 'charge.refunded',
      data: { object: { id: 'ch_1', object: 'charge', payment_intent: 'pi_456' } },
    });
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    expect(payments.parseWebhook(payload, header)).toEqual({
      id: 'evt_2',
      type: 'charge.refunded',
      createdAt: null,
      intentId: 'pi_456',
      refund: null,
    });
  });

  it('reads a refund event: the refund and its status now, in the port’s terms', () => {
    const refundEvent = (status: string) =>
      JSON.stringify({
        id: 'evt_3',
        object: 'event',
        type: 'refund.updated',
        data: {
          object: {
            id: 're_1',
            object: 'refund',
            amount: 500,
            status,
            payment_intent: { id: 'pi_789', object: 'payment_intent' },
          },
        },
      });
    for (const [given, read] of [
      ['failed', 'failed'],
      ['canceled', 'canceled'],
      ['succeeded', 'succeeded'],
      ['requires_action', 'pending'],
    ]) {
      const payload = refundEvent(given ?? '');
      const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
      expect(payments.parseWebhook(payload, header)).toEqual({
        id: 'evt_3',
        type: 'refund.updated',
        createdAt: null,
        intentId: 'pi_789',
        refund: { id: 're_1', status: read },
      });
    }
  });

  it('refuses a tampered body, a wrong secret, a stale timestamp and a missing header', () => {
    const payload = event('pi_123');
    const signed = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    const cases: [string, string, string | null][] = [
      ['tampered body', event('pi_999'), signed],
      ['wrong secret', payload, Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_other' })],
      [
        'stale timestamp (10 minutes old, beyond the default 5-minute tolerance)',
        payload,
        Stripe.webhooks.generateTestHeaderString({
          payload,
          secret: WEBHOOK_SECRET,
          timestamp: Math.floor(Date.now() / 1000) - 600,
        }),
      ],
      ['missing header', payload, null],
      ['garbage header', payload, 'not a signature'],
    ];
    for (const [what, body, header] of cases) {
      expect(() => payments.parseWebhook(body, header), what).toThrow(WebhookSignatureError);
    }
  });
});

describe('a discounted checkout through the Stripe adapter', () => {
  // The shop's own checkout on a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL), paying through the
  // Stripe adapter: what Stripe is asked to charge is the discounted total, and the order records exactly that.
  let db: Database & { url?: string };
  beforeAll(async () => {
    db = await freshDatabase();
    await db.query(`insert into public.discount_codes (code, kind, percent) values ('STRIPE15', 'percent', 15)`);
  }, 60_000);
  afterAll(async () => db?.close());

  it('asks Stripe for the discounted total (tax on the discounted subtotal), and records the order at what was charged', async () => {
    const catalogue = loadCatalogueIndex();
    const address = {
      name: 'Ada L',
      email: 'ada@example.com',
      street1: '1 Main St',
      city: 'Austin',
      state: 'TX',
      zip: '78701',
      country: 'US' as const,
    };
    const lines = [{ productId: 7, quantity: 3, selectedColor: null, selectedSize: null }];
    const quoted = await quoteRates(db, createRateTableShipping(), catalogue, { toAddress: address, lines });
    if (!quoted.ok) throw new Error(quoted.message);
    const body = { lines, address, rateId: quoted.rates[0]?.id ?? '', discountCode: 'stripe15' };
    const plain = await startCheckout(db, payments, catalogue, null, { ...body, discountCode: null });
    const started = await startCheckout(db, payments, catalogue, null, body);
    if (!started.ok || !plain.ok) throw new Error('checkout refused');
    const subtotal = 3 * (catalogue.get(7)?.priceCents ?? 0);
    const discount = Math.floor((subtotal * 15 + 50) / 100);
    expect(started.totals).toMatchObject({
      subtotalCents: subtotal,
      discountCents: discount,
      taxCents: taxCents(subtotal - discount),
    });
    expect(started.totals.totalCents).toBeLessThan(plain.totals.totalCents);
    expect(lastRequest()).toMatchObject({
      method: 'POST',
      path: '/v1/payment_intents',
      body: { amount: String(started.totals.totalCents) },
    });

    fake.succeed(started.paymentIntentId);
    const recorded = await recordOrder(db, payments, started.paymentIntentId);
    if (!recorded.ok) throw new Error(recorded.message);
    const [order] = await db.query<{ total_cents: number; discount_cents: number; discount_code: string }>(
      'select total_cents, discount_cents, discount_code from public.orders where id = $1',
      [recorded.order.id],
    );
    expect(order).toEqual({
      total_cents: fake.intent(started.paymentIntentId)?.amount,
      discount_cents: discount,
      discount_code: 'STRIPE15',
    });
  });
});
