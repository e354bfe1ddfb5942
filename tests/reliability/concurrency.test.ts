/**
 * Concurrency through the endpoints: twenty simultaneous confirmations of one payment, with ten duplicated and
 * reordered webhook deliveries and outbox runs in between, make one order, one label and one pair of e-mails; two tabs
 * saving one cart at once leave one of the two carts, never a mix. (tests/db/order-recording.test.ts covers the same
 * for the service functions alone.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTestWebhook } from '@/server/payments/test-processor.server';
import {
  ADDRESS,
  apiRequest,
  type Browser,
  browser,
  call,
  expectJson,
  ORIGIN,
  openCheckout,
  pay,
  SOAP,
  signedIn,
  startShop,
  stopShop,
  type TestShop,
} from './harness';
import { WEBHOOK_SECRET } from './test-shop';

let shop: TestShop;
let ann: Browser;

beforeAll(async () => {
  shop = await startShop({ ADDRESS_LIMIT_FACTOR: '1000' });
  ann = await signedIn(shop, 'ann@example.com');
}, 120_000);
afterAll(stopShop);

const count = async (sql: string, params: unknown[]) => (await shop.db.query<{ n: number }>(sql, params))[0]?.n;

function webhook(type: string, intentId: string, eventId: string): Request {
  const payload = JSON.stringify({ id: eventId, type, data: { object: { id: intentId, object: 'payment_intent' } } });
  return new Request(`${ORIGIN}/api/stripe-webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signTestWebhook(payload, WEBHOOK_SECRET) },
    body: payload,
  });
}

describe('concurrency', () => {
  it('20 confirmations, 10 duplicated or reordered webhooks and outbox runs at once: one order, one label, two e-mails', async () => {
    const checkout = await openCheckout(ann);
    await pay(checkout);
    const id = checkout.paymentIntentId;
    // Mail queued before (the sign-up's confirmation) goes out first, so what is sent below is this order's.
    await shop.runOutbox();
    shop.sent.length = 0;
    const confirmations = Array.from({ length: 20 }, () =>
      call(apiRequest('POST', '/api/orders/confirm', { paymentIntentId: id }), { jar: ann }),
    );
    // Duplicates of one event, other events for the same intent, in no particular order.
    const events = [
      webhook('payment_intent.succeeded', id, `evt_${id}`),
      webhook('payment_intent.created', id, `evt_created_${id}`),
      ...Array.from({ length: 6 }, () => webhook('payment_intent.succeeded', id, `evt_${id}`)),
      webhook('payment_intent.succeeded', id, `evt_again_${id}`),
      webhook('charge.succeeded', id, `evt_charge_${id}`),
    ].reverse();
    const deliveries = events.map((event) => call(event));
    const outboxRuns = Array.from({ length: 3 }, () => shop.runOutbox());
    const answers = await Promise.all([...confirmations, ...deliveries]);
    await Promise.all(outboxRuns);
    await shop.runOutbox();

    const statuses = answers.map((res) => res.status);
    // At most one confirmation created it (none when a webhook got there first); the others found it.
    expect(statuses.slice(0, 20).filter((s) => s === 201).length).toBeLessThanOrEqual(1);
    expect(statuses.every((s) => s === 200 || s === 201)).toBe(true);
    const orderIds = new Set(
      await Promise.all(answers.slice(0, 20).map(async (res) => ((await res.json()) as { order: { id: string } }).order.id)),
    );
    expect(orderIds.size).toBe(1);
    expect(await count('select count(*)::int as n from public.orders where payment_intent_id = $1', [id])).toBe(1);
    const [orderId] = [...orderIds];
    expect(
      await count(`select count(*)::int as n from public.outbox where kind = 'order-label' and payload ->> 'orderId' = $1`, [
        orderId,
      ]),
    ).toBe(1);
    expect(await count('select count(*)::int as n from public.order_labels where order_id = $1', [orderId])).toBe(1);
    expect(shop.sent.map((m) => m.to).sort()).toEqual([ADDRESS.email, shop.services.config.shopEmail].sort());
  });

  it('two tabs saving one cart at once leave one of the two carts whole, never a mix', async () => {
    const tabA = [SOAP, { productId: 6, quantity: 1, selectedColor: null, selectedSize: null }];
    const tabB = [{ productId: 3, quantity: 2, selectedColor: 'powder-blue', selectedSize: 'L' }];
    for (let round = 0; round < 5; round++) {
      const [a, b] = await Promise.all([
        call(apiRequest('PUT', '/api/cart', { lines: tabA }), { jar: ann }),
        call(apiRequest('PUT', '/api/cart', { lines: tabB }), { jar: ann }),
      ]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const { lines } = await expectJson<{ lines: { productId: number; quantity: number }[] }>(
        call(apiRequest('GET', '/api/cart'), { jar: ann }),
        200,
      );
      const saved = lines.map(({ productId, quantity }) => ({ productId, quantity }));
      const shapes = [tabA, tabB].map((tab) => tab.map(({ productId, quantity }) => ({ productId, quantity })));
      expect(shapes).toContainEqual(saved);
    }
    // A guest has no saved cart to race on.
    expect((await call(apiRequest('PUT', '/api/cart', { lines: tabA }), { jar: browser() })).status).toBe(401);
  });
});
