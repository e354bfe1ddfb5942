/**
 * Stock through the endpoints, as the built server runs them (src/middleware.ts in front; PGlite, or PostgreSQL with
 * TEST_DATABASE_URL): only the owner sets counts (a guest or shopper gets the 404 of a path that does not exist, a
 * request from another site is refused before it), twenty shoppers paying at once for the last three get exactly three
 * orders, one shopper cannot hold more than 5 of an item across checkouts, and anyone can read what is left.
 * tests/db/stock.test.ts covers the rules themselves (a guest's client address among them).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ADDRESS,
  ADMIN_EMAIL,
  apiRequest,
  type Browser,
  browser,
  call,
  expectJson,
  type OpenedCheckout,
  ORIGIN,
  pay,
  signedIn,
  startShop,
  stopShop,
  type TestShop,
  type WireLine,
} from './harness';

vi.mock('@/app/services.server', async (real) => ({
  ...(await real<object>()),
  getServices: (await import('./test-shop')).testServices,
}));
vi.mock('astro:content', async () => (await import('./test-shop')).astroContent);

let shop: TestShop;
let owner: Browser;
let shopper: Browser;

beforeAll(async () => {
  shop = await startShop({ ADDRESS_LIMIT_FACTOR: '1000' });
  [owner, shopper] = await Promise.all([signedIn(shop, ADMIN_EMAIL), signedIn(shop, 'sam@example.com')]);
}, 120_000);
afterAll(stopShop);

const SOAP: WireLine = { productId: 7, quantity: 1, selectedColor: null, selectedSize: null };

const setCounts = (body: unknown, jar: Browser, headers: Record<string, string> = {}) =>
  call(apiRequest('POST', '/api/admin/stock', body, headers), { jar });

/** Everything a refused call could have changed: the counts, the threshold and the activity log. */
async function stockState() {
  return shop.db.query<{ levels: unknown; threshold: number; actions: number }>(
    `select (select json_agg(s order by s.product_id, s.color, s.size) from public.stock_levels s) as levels,
            (select low_stock_threshold from public.stock_settings) as threshold,
            (select count(*)::int from public.admin_actions where action like 'stock.%') as actions`,
  );
}

describe('the owner’s stock endpoint', () => {
  it('answers a guest, a shopper and a request from another site as if it did not exist, and changes nothing', async () => {
    const body = { counts: [{ productId: 7, onHand: 1000 }], lowStockThreshold: 0 };
    const before = await stockState();
    for (const jar of [browser(), shopper]) {
      for (const method of ['GET', 'POST']) {
        const res = await call(apiRequest(method, '/api/admin/stock', method === 'POST' ? body : undefined), { jar });
        expect(res.status, method).toBe(404);
        expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'Not found.' } });
      }
      expect(
        (await call(apiRequest('POST', '/api/admin/orders/00000000-0000-4000-8000-000000000001/restock', {}), { jar })).status,
      ).toBe(404);
    }
    // The owner's own session, sent by a page on another site (or with no Origin at all): refused before the endpoint.
    for (const origin of ['https://evil.example', 'null']) {
      const res = await setCounts(body, owner, { origin });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: { code: 'forbidden_origin' } });
    }
    const noOrigin = await call(
      new Request(`${ORIGIN}/api/admin/stock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
      { jar: owner },
    );
    expect(noOrigin.status).toBe(403);
    expect(await stockState()).toEqual(before);
  });

  it('sets counts and the threshold for the owner, each change in the activity log; blank means unlimited again', async () => {
    const saved = await expectJson<{ rows: { id: string; onHand: number | null }[]; lowStockThreshold: number; changed: number }>(
      setCounts(
        {
          counts: [
            { productId: 7, onHand: 3, from: null },
            { productId: 3, selectedColor: 'blue', selectedSize: 'M', onHand: 1 },
          ],
          lowStockThreshold: 2,
        },
        owner,
      ),
      200,
    );
    expect(saved.changed).toBe(3);
    expect(saved.lowStockThreshold).toBe(2);
    const row = (id: string) => saved.rows.find((r) => r.id === id)?.onHand;
    expect([row('7'), row('3-blue-M'), row('6')]).toEqual([3, 1, null]);
    const actions = await shop.db.query<{ action: string; target: string; before: unknown; after: unknown }>(
      `select action, target, before, after from public.admin_actions where action like 'stock.%' order by id`,
    );
    expect(actions).toEqual([
      { action: 'stock.set', target: 'Clinical Scrubs (Blue, M)', before: { onHand: null }, after: { onHand: 1 } },
      { action: 'stock.set', target: 'Kojic Acid Soap', before: { onHand: null }, after: { onHand: 3 } },
      {
        action: 'stock.threshold',
        target: 'low-stock threshold',
        before: { lowStockThreshold: 3 },
        after: { lowStockThreshold: 2 },
      },
    ]);
    // The same again changes nothing and logs nothing.
    const again = await expectJson<{ changed: number }>(setCounts({ counts: [{ productId: 7, onHand: 3 }] }, owner), 200);
    expect(again.changed).toBe(0);
    const listed = await expectJson<{ rows: { id: string; onHand: number | null; available: number | null }[] }>(
      call(apiRequest('GET', '/api/admin/stock'), { jar: owner }),
      200,
    );
    expect(listed.rows.find((r) => r.id === '7')).toMatchObject({ onHand: 3, available: 3 });
    const unlimited = await expectJson<{ rows: { id: string; onHand: number | null; available: number | null }[] }>(
      setCounts({ counts: [{ productId: 6, onHand: 4 }] }, owner),
      200,
    );
    expect(unlimited.rows.find((r) => r.id === '6')).toMatchObject({ onHand: 4, available: 4 });
    const blank = await expectJson<{ rows: { id: string; onHand: number | null; available: number | null }[] }>(
      setCounts({ counts: [{ productId: 6, onHand: null, from: 4 }] }, owner),
      200,
    );
    expect(blank.rows.find((r) => r.id === '6')).toMatchObject({ onHand: null, available: null });
  });

  it('refuses a bad item or count with a message naming it, and changes nothing', async () => {
    const before = await stockState();
    const refusals: [unknown, RegExp][] = [
      [{ counts: [{ productId: 7, onHand: -1 }] }, /cannot be below 0/],
      [{ counts: [{ productId: 7, onHand: 1.5 }] }, /whole number/],
      [{ counts: [{ productId: 7, onHand: '5' }] }, /whole number/],
      [{ counts: [{ productId: 7, onHand: 2_000_000 }] }, /at most 1000000/],
      [{ counts: [{ productId: 99, onHand: 1 }] }, /^Count 1: There is no product 99\./],
      [{ counts: [{ productId: 3, onHand: 1 }] }, /Clinical Scrubs is counted by colour: choose one\./],
      [{ counts: [{ productId: 3, selectedColor: 'blue', onHand: 1 }] }, /counted by size/],
      [
        { counts: [{ productId: 3, selectedColor: 'mauve', selectedSize: 'M', onHand: 1 }] },
        /does not come in the colour “mauve”/,
      ],
      [{ counts: [{ productId: 7, selectedColor: 'blue', onHand: 1 }] }, /one colour only/],
      [
        {
          counts: [
            { productId: 6, onHand: 1 },
            { productId: 6, onHand: 2 },
          ],
        },
        /Count 2 repeats an item/,
      ],
      [{ lowStockThreshold: -3 }, /threshold cannot be below 0/],
      [{}, /Send counts, a lowStockThreshold, or both/],
      [{ counts: 'all' }, /counts must be a list/],
    ];
    for (const [body, message] of refusals) {
      const res = await setCounts(body, owner);
      const answer = (await res.json()) as { error: { message: string } };
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(answer.error.message, JSON.stringify(body)).toMatch(message);
    }
    // A valid change sent with an invalid one: all or nothing.
    const mixed = await setCounts(
      {
        counts: [
          { productId: 6, onHand: 10 },
          { productId: 42, onHand: 1 },
        ],
      },
      owner,
    );
    expect(mixed.status).toBe(400);
    expect(await stockState()).toEqual(before);
  });

  it('refuses (409) a count that moved since the owner saw it, a sale say, and saves nothing of that request', async () => {
    const before = await stockState();
    const res = await setCounts(
      {
        counts: [
          { productId: 6, onHand: 10, from: null },
          { productId: 7, onHand: 10, from: 2 },
        ],
      },
      owner,
    );
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({
      error: {
        code: 'stock_changed',
        message:
          'Kojic Acid Soap has changed since the page was loaded (it is 3 now, after a sale or another admin’s change). Nothing was saved: reload the page and try again.',
      },
    });
    expect(await stockState()).toEqual(before);
  });
});

describe('shoppers and the counts', () => {
  const guestCheckout = async (jar: Browser, lines: WireLine[]) => {
    const { rates } = await expectJson<{ rates: { object_id: string }[] }>(
      call(apiRequest('POST', '/api/shippo-rates', { toAddress: ADDRESS, lines }), { jar }),
      200,
    );
    return call(apiRequest('POST', '/api/create-payment-intent', { lines, address: ADDRESS, rateId: rates[0]?.object_id }), {
      jar,
    });
  };

  it('anyone reads what can be bought, and which products cannot be bought at all', async () => {
    await expectJson(setCounts({ counts: [{ productId: 8, onHand: 0 }] }, owner), 200);
    const res = await call(apiRequest('GET', '/api/stock'));
    expect(res.headers.get('cache-control')).toBe('no-store');
    const answer = (await res.json()) as { available: Record<string, number>; soldOut: number[] };
    expect(answer).toMatchObject({ available: { '7': 3, '8': 0, '3-blue-M': 1 }, soldOut: [8] });
    // A product sold by colour and size is sold out only when every one of them is.
    expect(answer.soldOut).not.toContain(3);
  });

  it('twenty shoppers paying at once for the last three: three orders; the others are refused before any payment', async () => {
    await expectJson(setCounts({ counts: [{ productId: 7, onHand: 3 }] }, owner), 200);
    const jars = Array.from({ length: 20 }, () => browser());
    const opened = await Promise.all(jars.map((jar) => guestCheckout(jar, [SOAP])));
    const answers = await Promise.all(opened.map(async (res) => ({ status: res.status, body: await res.json() })));
    const held = answers.filter((a) => a.status === 200);
    expect(held).toHaveLength(3);
    for (const refused of answers.filter((a) => a.status !== 200))
      expect(refused).toEqual({
        status: 409,
        body: {
          error: { code: 'out_of_stock', message: 'Kojic Acid Soap is out of stock. Please remove it from your cart.' },
        },
      });
    const checkouts = held.map((a) => a.body as OpenedCheckout);
    await Promise.all(checkouts.map(pay));
    const confirmed = await Promise.all(
      checkouts.flatMap((c) =>
        Array.from({ length: 3 }, () => call(apiRequest('POST', '/api/orders/confirm', { paymentIntentId: c.paymentIntentId }))),
      ),
    );
    expect(confirmed.filter((r) => r.status === 201)).toHaveLength(3);
    expect(confirmed.every((r) => r.status === 201 || r.status === 200)).toBe(true);
    const [counted] = await shop.db.query<{ on_hand: number; orders: number }>(
      `select on_hand, (select count(*)::int from public.orders where payment_intent_id = any($1)) as orders
         from public.stock_levels where product_id = 7`,
      [checkouts.map((c) => c.paymentIntentId)],
    );
    expect(counted).toEqual({ on_hand: 0, orders: 3 });
    expect(await (await call(apiRequest('GET', '/api/stock'))).json()).toMatchObject({ soldOut: expect.arrayContaining([7]) });
  });

  it('a payment confirmed after its items sold out is answered 409 sold_out, and refunded', async () => {
    await expectJson(setCounts({ counts: [{ productId: 5, onHand: 1 }] }, owner), 200);
    const line = { productId: 5, quantity: 1, selectedColor: null, selectedSize: null };
    const late = await expectJson<OpenedCheckout>(guestCheckout(browser(), [line]), 200);
    await pay(late);
    await shop.db.query(`update public.stock_holds set expires_at = now() - interval '1 second'`);
    const other = await expectJson<OpenedCheckout>(guestCheckout(browser(), [line]), 200);
    await pay(other);
    await expectJson(call(apiRequest('POST', '/api/orders/confirm', { paymentIntentId: other.paymentIntentId })), 201);
    const res = await call(apiRequest('POST', '/api/orders/confirm', { paymentIntentId: late.paymentIntentId }));
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({
      error: { code: 'sold_out', message: expect.stringMatching(/^Vitamin C Body Butter sold out while your payment/) },
    });
    // The refund's job, then the e-mails it queued.
    await shop.runOutbox();
    await shop.runOutbox();
    const [refund] = await shop.db.query<{ n: number }>(
      `select count(*)::int as n from public.test_refunds where intent_id = $1 and status = 'succeeded'`,
      [late.paymentIntentId],
    );
    expect(refund?.n).toBe(1);
    expect(shop.sent.some((m) => m.to === ADDRESS.email && /could not be placed: refunded in full/.test(m.subject))).toBe(true);
  });

  it('a declined card lets go of the hold; the next attempt holds again before the card is charged', async () => {
    await expectJson(setCounts({ counts: [{ productId: 9, onHand: 1 }] }, owner), 200);
    const line = { productId: 9, quantity: 1, selectedColor: null, selectedSize: null };
    const jar = browser();
    const mine = await expectJson<OpenedCheckout>(guestCheckout(jar, [line]), 200);
    const declined = await expectJson<{ status: string; error: string }>(
      call(
        apiRequest('POST', '/api/test-payments/confirm', {
          clientSecret: mine.client_secret,
          number: '4000000000000002',
          expMonth: 12,
          expYear: 34,
          cvc: '123',
        }),
      ),
      200,
    );
    expect(declined.error).toBe('Your card was declined.');
    // Let go: another shopper can now hold it, and this shopper's next attempt is refused before the charge.
    const other = await expectJson<OpenedCheckout>(guestCheckout(browser(), [line]), 200);
    const { rates } = await expectJson<{ rates: { object_id: string }[] }>(
      call(apiRequest('POST', '/api/shippo-rates', { toAddress: ADDRESS, lines: [line] }), { jar }),
      200,
    );
    const retry = await call(
      apiRequest('POST', '/api/create-payment-intent', {
        lines: [line],
        address: ADDRESS,
        rateId: rates[0]?.object_id,
        previousClientSecret: mine.client_secret,
      }),
      { jar },
    );
    expect(retry.status).toBe(409);
    expect(await retry.json()).toMatchObject({ error: { code: 'out_of_stock' } });
    expect(other.paymentIntentId).not.toBe(mine.paymentIntentId);
  });

  it('one signed-in shopper holds at most 5 of an item across checkouts: another checkout is refused in their words', async () => {
    await expectJson(setCounts({ counts: [{ productId: 2, onHand: 100 }] }, owner), 200);
    const butter = (quantity: number): WireLine => ({ productId: 2, quantity, selectedColor: null, selectedSize: null });
    const first = await expectJson<OpenedCheckout>(guestCheckout(shopper, [butter(4)]), 200);
    // A second checkout (another tab, another device) is not a way to hold more.
    const second = await guestCheckout(shopper, [butter(2)]);
    expect(second.status).toBe(409);
    expect(await second.json()).toEqual({
      error: {
        code: 'hold_limit',
        message:
          'You already have 4 of Turmeric Body Butter set aside in another checkout, and we hold up to 5 for one shopper at a time. Please lower the quantity in your cart to 1, or finish that checkout first.',
      },
    });
    expect(await expectJson<OpenedCheckout>(guestCheckout(shopper, [butter(1)]), 200)).toMatchObject({
      amountCents: expect.any(Number),
    });
    // Their first checkout paying again is not held against them; a guest is someone else.
    const { rates } = await expectJson<{ rates: { object_id: string }[] }>(
      call(apiRequest('POST', '/api/shippo-rates', { toAddress: ADDRESS, lines: [butter(4)] }), { jar: shopper }),
      200,
    );
    const again = await call(
      apiRequest('POST', '/api/create-payment-intent', {
        lines: [butter(4)],
        address: ADDRESS,
        rateId: rates[0]?.object_id,
        previousClientSecret: first.client_secret,
      }),
      { jar: shopper },
    );
    expect(again.status).toBe(200);
    expect((await guestCheckout(browser(), [butter(5)])).status).toBe(200);
    const [held] = await shop.db.query<{ n: number }>(
      `select sum(quantity)::int as n from public.stock_holds where product_id = 2 and expires_at > now()`,
    );
    expect(held?.n).toBe(4 + 1 + 5);
  });
});
