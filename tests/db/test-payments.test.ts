import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { asService } from '@/server/db/roles.server';
import {
  IdempotencyKeyReusedError,
  IntentNotFoundError,
  IntentNotUpdatableError,
  PaymentsError,
  WebhookSignatureError,
} from '@/server/payments/payments.port';
import { createStripePayments } from '@/server/payments/stripe.server';
import { authenticateTestCard, confirmTestCard } from '@/server/payments/test-card-routes.server';
import { CARD_MESSAGES, type CardDetails } from '@/server/payments/test-cards';
import { createTestProcessor, IntentNotConfirmableError, signTestWebhook } from '@/server/payments/test-processor.server';
import { LIMITS } from '@/server/ratelimit.server';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
// A fixed "today", so that the expiry checks do not depend on when the suite runs.
const today = new Date('2026-11-24T12:00:00Z');
const processor = () => createTestProcessor(db, { webhookSecret: 'whsec_test_suite', now: () => today });

const card = (number: string, more: Partial<CardDetails> = {}): CardDetails => ({
  number,
  expMonth: 12,
  expYear: 30,
  cvc: '123',
  ...more,
});

async function newIntent(amountCents = 10_890) {
  return processor().createIntent({ amountCents, metadata: { checkout: randomUUID() }, idempotencyKey: randomUUID() });
}

describe(`the test processor on ${TEST_DATABASE_KIND}`, () => {
  describe('creating intents', () => {
    it('stores an intent for exactly the amount, in USD, waiting for a card', async () => {
      const intent = await processor().createIntent({ amountCents: 4_599, metadata: { checkout: 'c1' }, idempotencyKey: 'k-1' });
      expect(intent).toMatchObject({
        amountCents: 4_599,
        currency: 'usd',
        status: 'requires_payment_method',
        metadata: { checkout: 'c1' },
        lastError: null,
      });
      expect(intent.id).toMatch(/^pi_test_[0-9a-f]{24}$/);
      expect(intent.clientSecret).toMatch(new RegExp(`^${intent.id}_secret_[0-9a-f]{32}$`));
      expect(await processor().retrieveIntent(intent.id)).toEqual(intent);
    });

    it('answers a retried create (same key, same parameters) with the same intent', async () => {
      const input = { amountCents: 2_500, metadata: { checkout: 'c2', hash: 'abc' }, idempotencyKey: 'k-2' };
      const first = await processor().createIntent(input);
      const again = await processor().createIntent({ ...input, metadata: { hash: 'abc', checkout: 'c2' } });
      expect(again).toEqual(first);
      const [{ n } = { n: -1 }] = await asService(db, (tx) =>
        tx.query<{ n: number }>(`select count(*)::int as n from public.test_payment_intents where idempotency_key = 'k-2'`),
      );
      expect(n).toBe(1);
    });

    it('makes one intent when the same create races with itself (a double click reaching two processes)', async () => {
      const input = { amountCents: 7_700, metadata: { checkout: 'race' }, idempotencyKey: randomUUID() };
      const intents = await Promise.all(Array.from({ length: 10 }, () => processor().createIntent(input)));
      expect(new Set(intents.map((i) => i.id)).size).toBe(1);
    });

    it('refuses the same key with other parameters, as Stripe does', async () => {
      await processor().createIntent({ amountCents: 3_000, metadata: { checkout: 'c3' }, idempotencyKey: 'k-3' });
      await expect(
        processor().createIntent({ amountCents: 3_001, metadata: { checkout: 'c3' }, idempotencyKey: 'k-3' }),
      ).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
      await expect(
        processor().createIntent({ amountCents: 3_000, metadata: { checkout: 'other' }, idempotencyKey: 'k-3' }),
      ).rejects.toThrow(/can only be used with the same parameters/);
    });

    it('refuses amounts Stripe would refuse (below $0.50, fractions of a cent)', async () => {
      for (const amountCents of [0, 49, -100, 10.5]) {
        await expect(
          processor().createIntent({ amountCents, metadata: {}, idempotencyKey: randomUUID() }),
          String(amountCents),
        ).rejects.toBeInstanceOf(PaymentsError);
      }
    });

    it('does not know an intent it never made', async () => {
      await expect(processor().retrieveIntent('pi_test_nothing')).rejects.toBeInstanceOf(IntentNotFoundError);
    });
  });

  describe("Stripe's test cards", () => {
    const outcomes = [
      { number: '4242 4242 4242 4242', status: 'succeeded', error: null },
      { number: '4000 0000 0000 0002', status: 'requires_payment_method', error: 'Your card was declined.' },
      { number: '4000 0000 0000 9995', status: 'requires_payment_method', error: 'Your card has insufficient funds.' },
      { number: '4000 0000 0000 0069', status: 'requires_payment_method', error: 'Your card has expired.' },
      { number: '4000 0000 0000 0127', status: 'requires_payment_method', error: "Your card's security code is incorrect." },
      {
        number: '4000 0000 0000 0119',
        status: 'requires_payment_method',
        error: 'An error occurred while processing your card. Try again in a little bit.',
      },
      // Luhn-valid, but not a test card: Stripe's test mode says the number is incorrect.
      { number: '4000 0566 5566 5556', status: 'requires_payment_method', error: 'Your card number is incorrect.' },
      { number: '5555 5555 5555 4444', status: 'requires_payment_method', error: 'Your card number is incorrect.' },
    ] as const;

    it.each(outcomes)('$number → $status $error', async ({ number, status, error }) => {
      const intent = await newIntent();
      const result = await processor().confirm(intent.clientSecret, card(number));
      expect(result).toEqual(error ? { status, error } : { status });
      const stored = await processor().retrieveIntent(intent.id);
      expect(stored.status).toBe(status);
      expect(stored.lastError).toBe(error);
    });

    it('lets the shopper try another card after a decline', async () => {
      const intent = await newIntent();
      await processor().confirm(intent.clientSecret, card('4000000000000002'));
      expect(await processor().confirm(intent.clientSecret, card('4242424242424242'))).toEqual({ status: 'succeeded' });
      expect(await processor().retrieveIntent(intent.id)).toMatchObject({ status: 'succeeded', lastError: null });
    });

    const typos = [
      { what: 'a short number', given: { number: '4242 4242' }, field: 'number', message: CARD_MESSAGES.numberIncomplete },
      {
        what: 'a number failing Luhn',
        given: { number: '4242 4242 4242 4241' },
        field: 'number',
        message: CARD_MESSAGES.numberInvalid,
      },
      {
        what: 'letters in the number',
        given: { number: '4242 abcd 4242 4242' },
        field: 'number',
        message: CARD_MESSAGES.numberInvalid,
      },
      { what: 'month 13', given: { expMonth: 13 }, field: 'expiry', message: CARD_MESSAGES.expiryMonthInvalid },
      { what: 'last year', given: { expMonth: 12, expYear: 25 }, field: 'expiry', message: CARD_MESSAGES.expiryYearPast },
      { what: 'last month', given: { expMonth: 10, expYear: 2026 }, field: 'expiry', message: CARD_MESSAGES.expiryDatePast },
      { what: 'a year far ahead', given: { expYear: 2099 }, field: 'expiry', message: CARD_MESSAGES.expiryYearInvalid },
      { what: 'no CVC', given: { cvc: '' }, field: 'cvc', message: CARD_MESSAGES.cvcIncomplete },
      { what: 'a two-digit CVC', given: { cvc: '12' }, field: 'cvc', message: CARD_MESSAGES.cvcIncomplete },
      { what: 'a short ZIP', given: { postalCode: '123' }, field: 'postalCode', message: CARD_MESSAGES.postalCodeIncomplete },
    ] as const;

    it.each(typos)('$what → "$message", and the intent is left as it was', async ({ given, field, message }) => {
      const intent = await newIntent();
      const result = await processor().confirm(intent.clientSecret, card('4242424242424242', given));
      expect(result).toEqual({ status: 'requires_payment_method', error: message, field });
      expect(await processor().retrieveIntent(intent.id)).toEqual(intent);
    });

    it('takes this month as still valid, and a ZIP when it is well formed', async () => {
      const intent = await newIntent();
      const result = await processor().confirm(
        intent.clientSecret,
        card('4242424242424242', { expMonth: 11, expYear: 26, postalCode: '97201' }),
      );
      expect(result).toEqual({ status: 'succeeded' });
    });

    it('refuses an unknown client secret', async () => {
      await expect(processor().confirm('pi_test_x_secret_y', card('4242424242424242'))).rejects.toBeInstanceOf(PaymentsError);
    });
  });

  describe('3-D Secure (4000 0025 0000 3155)', () => {
    it('asks for authentication, and completing it charges the card', async () => {
      const intent = await newIntent();
      expect(await processor().confirm(intent.clientSecret, card('4000 0025 0000 3155'))).toEqual({
        status: 'requires_action',
        nextAction: 'authenticate',
      });
      expect((await processor().retrieveIntent(intent.id)).status).toBe('requires_action');
      expect(await processor().authenticate(intent.clientSecret, true)).toEqual({ status: 'succeeded' });
      expect(await processor().retrieveIntent(intent.id)).toMatchObject({ status: 'succeeded', lastError: null });
      // A repeated approval (a double click) reports the payment without charging again.
      expect(await processor().authenticate(intent.clientSecret, true)).toEqual({ status: 'succeeded' });
    });

    it('failing the challenge leaves the intent waiting for another card, with Stripe’s message', async () => {
      const intent = await newIntent();
      await processor().confirm(intent.clientSecret, card('4000002500003155'));
      const result = await processor().authenticate(intent.clientSecret, false);
      expect(result).toEqual({ status: 'requires_payment_method', error: CARD_MESSAGES.authenticationFailed });
      expect(CARD_MESSAGES.authenticationFailed).toBe(
        'We are unable to authenticate your payment method. Please choose a different payment method and try again.',
      );
      expect(await processor().retrieveIntent(intent.id)).toMatchObject({
        status: 'requires_payment_method',
        lastError: CARD_MESSAGES.authenticationFailed,
      });
    });

    it('refuses a challenge answer when no challenge is pending', async () => {
      const intent = await newIntent();
      await expect(processor().authenticate(intent.clientSecret, true)).rejects.toBeInstanceOf(IntentNotConfirmableError);
    });
  });

  describe('charging exactly once', () => {
    it('confirming a succeeded intent again reports success and changes nothing', async () => {
      const intent = await newIntent();
      await processor().confirm(intent.clientSecret, card('4242424242424242'));
      const [before] = await asService(db, (tx) =>
        tx.query<{ succeeded_at: string }>(`select succeeded_at::text from public.test_payment_intents where id = $1`, [
          intent.id,
        ]),
      );
      // Even a declining card cannot undo or repeat the charge.
      expect(await processor().confirm(intent.clientSecret, card('4000000000000002'))).toEqual({ status: 'succeeded' });
      expect(await processor().confirm(intent.clientSecret, card('4242424242424242'))).toEqual({ status: 'succeeded' });
      const [after] = await asService(db, (tx) =>
        tx.query<{ succeeded_at: string }>(`select succeeded_at::text from public.test_payment_intents where id = $1`, [
          intent.id,
        ]),
      );
      expect(after).toEqual(before);
    });

    it('twenty concurrent confirmations of one intent: one charges, the others see it charged', async () => {
      const intent = await newIntent();
      // Each request goes through its own processor instance, as separate server processes would.
      const results = await Promise.all(
        Array.from({ length: 20 }, () => processor().confirm(intent.clientSecret, card('4242424242424242'))),
      );
      expect(results).toEqual(Array.from({ length: 20 }, () => ({ status: 'succeeded' })));
      const rows = await asService(db, (tx) =>
        tx.query<{ status: string; succeeded_at: string | null }>(
          `select status, succeeded_at::text from public.test_payment_intents where id = $1`,
          [intent.id],
        ),
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]?.status).toBe('succeeded');
    });

    it('twenty concurrent confirmations mixing cards: exactly one card is charged and the outcome is consistent', async () => {
      const intent = await newIntent();
      const numbers = ['4242424242424242', '4000000000000002', '4000002500003155', '4000000000009995'];
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => processor().confirm(intent.clientSecret, card(numbers[i % numbers.length] ?? ''))),
      );
      const stored = await processor().retrieveIntent(intent.id);
      // Once one confirmation succeeded, every later one answers succeeded without charging.
      const firstSuccess = results.findIndex((r) => r.status === 'succeeded');
      expect(firstSuccess).toBeGreaterThanOrEqual(0);
      expect(stored.status).toBe('succeeded');
    });
  });

  describe('changing an intent', () => {
    it('updates the amount and merges metadata while unpaid', async () => {
      const intent = await processor().createIntent({
        amountCents: 5_000,
        metadata: { checkout: 'c9', hash: 'one' },
        idempotencyKey: randomUUID(),
      });
      const updated = await processor().updateIntent(intent.id, { amountCents: 5_500, metadata: { hash: 'two' } });
      expect(updated).toMatchObject({
        id: intent.id,
        clientSecret: intent.clientSecret,
        amountCents: 5_500,
        metadata: { checkout: 'c9', hash: 'two' },
      });
    });

    it('asks for the card again when the amount changes during a challenge', async () => {
      const intent = await newIntent();
      await processor().confirm(intent.clientSecret, card('4000002500003155'));
      const updated = await processor().updateIntent(intent.id, { amountCents: 12_000, metadata: {} });
      expect(updated.status).toBe('requires_payment_method');
      await expect(processor().authenticate(intent.clientSecret, true)).rejects.toBeInstanceOf(IntentNotConfirmableError);
    });

    it('refuses to update a paid or canceled intent, so the caller makes a new one', async () => {
      const paid = await newIntent();
      await processor().confirm(paid.clientSecret, card('4242424242424242'));
      const refused = processor().updateIntent(paid.id, { amountCents: 1_000, metadata: {} });
      await expect(refused).rejects.toBeInstanceOf(IntentNotUpdatableError);
      await expect(refused).rejects.toMatchObject({ status: 'succeeded', intentId: paid.id });
      expect((await processor().retrieveIntent(paid.id)).amountCents).toBe(10_890);

      const canceled = await newIntent();
      await processor().cancelIntent(canceled.id);
      await expect(processor().updateIntent(canceled.id, { amountCents: 1_000, metadata: {} })).rejects.toBeInstanceOf(
        IntentNotUpdatableError,
      );
    });

    it('cancels an unpaid intent (twice is fine), never a paid one, and a canceled one cannot be confirmed', async () => {
      const intent = await newIntent();
      expect((await processor().cancelIntent(intent.id)).status).toBe('canceled');
      expect((await processor().cancelIntent(intent.id)).status).toBe('canceled');
      await expect(processor().confirm(intent.clientSecret, card('4242424242424242'))).rejects.toBeInstanceOf(
        IntentNotConfirmableError,
      );
      const paid = await newIntent();
      await processor().confirm(paid.clientSecret, card('4242424242424242'));
      await expect(processor().cancelIntent(paid.id)).rejects.toBeInstanceOf(IntentNotUpdatableError);
    });
  });

  describe('refunds', () => {
    it('refunds all that is left by default, part of it when asked, and never more than was paid', async () => {
      const intent = await newIntent(10_000);
      await processor().confirm(intent.clientSecret, card('4242424242424242'));
      const part = await processor().refund({ intentId: intent.id, amountCents: 2_500, idempotencyKey: 'r-1' });
      expect(part).toMatchObject({ amountCents: 2_500, status: 'succeeded' });
      expect(part.id).toMatch(/^re_test_/);
      await expect(processor().refund({ intentId: intent.id, amountCents: 7_501, idempotencyKey: 'r-2' })).rejects.toThrow(
        /greater than unrefunded amount/,
      );
      const rest = await processor().refund({ intentId: intent.id, idempotencyKey: 'r-3' });
      expect(rest.amountCents).toBe(7_500);
      await expect(processor().refund({ intentId: intent.id, idempotencyKey: 'r-4' })).rejects.toBeInstanceOf(PaymentsError);
    });

    it('is idempotent by key, and refuses the key with other parameters', async () => {
      const intent = await newIntent(10_000);
      await processor().confirm(intent.clientSecret, card('4242424242424242'));
      const first = await processor().refund({ intentId: intent.id, amountCents: 1_000, idempotencyKey: 'r-same' });
      expect(await processor().refund({ intentId: intent.id, amountCents: 1_000, idempotencyKey: 'r-same' })).toEqual(first);
      await expect(
        processor().refund({ intentId: intent.id, amountCents: 2_000, idempotencyKey: 'r-same' }),
      ).rejects.toBeInstanceOf(IdempotencyKeyReusedError);
    });

    it('concurrent refunds of one payment never add up to more than it', async () => {
      const intent = await newIntent(10_000);
      await processor().confirm(intent.clientSecret, card('4242424242424242'));
      const results = await Promise.allSettled(
        Array.from({ length: 5 }, () =>
          processor().refund({ intentId: intent.id, amountCents: 4_000, idempotencyKey: randomUUID() }),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    });

    it('refuses to refund an unpaid intent', async () => {
      const intent = await newIntent();
      await expect(processor().refund({ intentId: intent.id, idempotencyKey: randomUUID() })).rejects.toThrow(
        /does not have a successful charge to refund/,
      );
    });
  });

  describe('webhooks, signed like Stripe’s', () => {
    const body = JSON.stringify({
      id: 'evt_test_1',
      type: 'payment_intent.succeeded',
      data: { object: { object: 'payment_intent', id: 'pi_test_abc' } },
    });
    const at = Math.floor(today.getTime() / 1000);

    it('reads a correctly signed event', () => {
      expect(processor().parseWebhook(body, signTestWebhook(body, 'whsec_test_suite', at))).toEqual({
        id: 'evt_test_1',
        type: 'payment_intent.succeeded',
        createdAt: null,
        intentId: 'pi_test_abc',
        refund: null,
      });
    });

    it('refuses a missing, tampered, wrongly keyed or stale signature', () => {
      const refused = [
        [body, null],
        [body.replace('pi_test_abc', 'pi_test_xyz'), signTestWebhook(body, 'whsec_test_suite', at)],
        [body, signTestWebhook(body, 'whsec_other', at)],
        [body, signTestWebhook(body, 'whsec_test_suite', at - 301)],
        [body, 'garbage'],
      ] as const;
      for (const [raw, header] of refused) {
        expect(() => processor().parseWebhook(raw, header), String(header)).toThrow(WebhookSignatureError);
      }
    });
  });

  it('its tables are out of reach of guests and shoppers (see the RLS matrix for every cell)', async () => {
    const [row] = await db.query<{ anon: boolean; authenticated: boolean }>(
      `select has_table_privilege('anon', 'public.test_payment_intents', 'select') as anon,
              has_table_privilege('authenticated', 'public.test_payment_intents', 'select') as authenticated`,
    );
    expect(row).toEqual({ anon: false, authenticated: false });
  });

  describe('the card form’s endpoints', () => {
    const post = (path: string, body: unknown) =>
      new Request(`http://shop.test${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const deps = () => ({ db, payments: processor(), limits: LIMITS });
    const form = (clientSecret: string, number: string) => ({ clientSecret, number, expMonth: 12, expYear: 30, cvc: '123' });

    it('charge a card and answer {status, error?, nextAction?}', async () => {
      const intent = await newIntent();
      const declined = await confirmTestCard(
        deps(),
        post('/api/test-payments/confirm', form(intent.clientSecret, '4000000000000002')),
      );
      expect(declined.status).toBe(200);
      expect(await declined.json()).toEqual({ status: 'requires_payment_method', error: 'Your card was declined.' });

      const challenged = await confirmTestCard(
        deps(),
        post('/api/test-payments/confirm', form(intent.clientSecret, '4000002500003155')),
      );
      expect(await challenged.json()).toEqual({ status: 'requires_action', nextAction: 'authenticate' });
      const approved = await authenticateTestCard(
        deps(),
        post('/api/test-payments/authenticate', { clientSecret: intent.clientSecret, approve: true }),
      );
      expect(await approved.json()).toEqual({ status: 'succeeded' });
    });

    it('answer 400 for a malformed body, 404 for an unknown secret, 409 for a canceled payment', async () => {
      const bad = await confirmTestCard(deps(), post('/api/test-payments/confirm', { clientSecret: 'x', number: 4242 }));
      expect(bad.status).toBe(400);
      const unknown = await confirmTestCard(
        deps(),
        post('/api/test-payments/confirm', form('pi_test_none_secret_x', '4242424242424242')),
      );
      expect(unknown.status).toBe(404);
      const intent = await newIntent();
      await processor().cancelIntent(intent.id);
      const canceled = await confirmTestCard(
        deps(),
        post('/api/test-payments/confirm', form(intent.clientSecret, '4242424242424242')),
      );
      expect(canceled.status).toBe(409);
      expect((await canceled.json()).error.code).toBe('intent_not_confirmable');
    });

    it('refuse card attempts past the limit on one client secret, so card numbers cannot be tried by the thousand', async () => {
      const intent = await newIntent();
      const limits = { testCardPerIntent: { limit: 3, windowSeconds: 600 } };
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await confirmTestCard(
          { db, payments: processor(), limits },
          post('/api/test-payments/confirm', form(intent.clientSecret, '4000000000000002')),
        );
        statuses.push(res.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
    });

    it('do not exist when Stripe is the payments adapter', async () => {
      const stripe = createStripePayments({ secretKey: 'sk_test_x', publishableKey: 'pk_test_x', webhookSecret: 'whsec_x' });
      const intent = await newIntent();
      const confirm = await confirmTestCard(
        { db, payments: stripe, limits: LIMITS },
        post('/api/test-payments/confirm', form(intent.clientSecret, '4242424242424242')),
      );
      expect(confirm.status).toBe(404);
      const auth = await authenticateTestCard(
        { db, payments: stripe, limits: LIMITS },
        post('/api/test-payments/authenticate', { clientSecret: intent.clientSecret, approve: true }),
      );
      expect(auth.status).toBe(404);
      expect((await processor().retrieveIntent(intent.id)).status).toBe('requires_payment_method');
    });
  });
});
