/**
 * Discount codes through the endpoints, as the built server runs them (src/middleware.ts in front; PGlite, or
 * PostgreSQL with TEST_DATABASE_URL): the drawer's check answers a code's effect or why not, in words, and is limited
 * per client address (guesses harder than checks); `discountCode` beside the payment's other fields is priced on the
 * server, charged and recorded to the cent; a code that cannot be used opens nothing. tests/db/discount-holds.test.ts
 * covers the holds, the limits and the race.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DISCOUNT_MESSAGES, SHOPPER_RULES } from '@/features/discounts/discounts';
import {
  ADDRESS,
  apiRequest,
  type Browser,
  browser,
  call,
  expectJson,
  type OpenedCheckout,
  openCheckout,
  pay,
  SOAP,
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
let guest: Browser;

beforeAll(async () => {
  // The real per-address limits (factor 1): each test speaks from an address of its own.
  shop = await startShop({ ADDRESS_LIMIT_FACTOR: '1' });
  guest = browser();
  await shop.db.query(
    `insert into public.discount_codes (code, kind, percent, usage_limit) values ('TENOFF', 'percent', 10, 100),
       ('GONE', 'percent', 10, 1), ('RACE10', 'percent', 15, 10)`,
  );
  await shop.db.query(
    `insert into public.discount_codes (code, kind, percent, per_customer_limit) values ('ONCEEACH', 'percent', 20, 1)`,
  );
}, 120_000);
afterAll(stopShop);

const SCRUBS: WireLine = { productId: 3, quantity: 1, selectedColor: 'powder-blue', selectedSize: 'M' };
const check = (body: unknown, clientAddress: string) =>
  call(apiRequest('POST', '/api/discount', body), { jar: guest, clientAddress });
const problemOf = async (res: Response) => ({ status: res.status, ...((await res.json()) as { error: object }).error });

describe('the drawer’s check of a code', () => {
  it('answers the code’s effect per cart id, in cents, with the rule sentence; a lower-case code is the same code', async () => {
    const answer = await expectJson<Record<string, unknown>>(
      check({ discountCode: 'tenoff', lines: [SOAP, SCRUBS] }, '10.0.0.1'),
      200,
    );
    expect(answer).toMatchObject({
      code: 'TENOFF',
      offerCents: 0,
      freeShipping: false,
      notice: null,
      rule: SHOPPER_RULES.better,
    });
    const lines = answer.lines as { cartId: string; discountCents: number }[];
    expect(lines.map((l) => l.cartId)).toEqual(['8', '3-powder-blue-M']);
    expect(lines.reduce((s, l) => s + l.discountCents, 0)).toBe(answer.discountCents);
    expect(answer.discountCents).toBeGreaterThan(0);
  });

  it('says in words why a code cannot be used, and nothing is held', async () => {
    expect(await problemOf(await check({ discountCode: 'NOPE42', lines: [SOAP] }, '10.0.0.2'))).toEqual({
      status: 409,
      code: 'discount_refused',
      message: DISCOUNT_MESSAGES.unknown('NOPE42'),
    });
    expect(await problemOf(await check({ discountCode: 'x', lines: [SOAP] }, '10.0.0.2'))).toEqual({
      status: 400,
      code: 'discount_refused',
      message: DISCOUNT_MESSAGES.malformed,
    });
    const [held] = await shop.db.query<{ n: number }>(`select count(*)::int as n from public.discount_redemptions`);
    expect(held?.n).toBe(0);
  });

  it('refuses what is not a cart (negative, huge, too many lines, too big a body) with a 4xx, never a 500', async () => {
    const bad = [
      { discountCode: 'TENOFF', lines: [{ ...SOAP, quantity: -1 }] },
      { discountCode: 'TENOFF', lines: [{ ...SOAP, quantity: 1e12 }] },
      { discountCode: 'TENOFF', lines: [{ ...SOAP, productId: 2 ** 53 }] },
      { discountCode: 'TENOFF', lines: [] },
      { discountCode: 12, lines: [SOAP] },
      { discountCode: 'A'.repeat(65), lines: [SOAP] },
      { discountCode: 'TENOFF', lines: [SOAP], email: 'x'.repeat(300) },
    ];
    for (const [i, body] of bad.entries()) {
      const res = await check(body, `10.0.1.${i}`);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
    }
    const huge = await call(
      new Request('http://127.0.0.1:4321/api/discount', {
        method: 'POST',
        headers: { origin: 'http://127.0.0.1:4321', 'content-type': 'application/json' },
        body: JSON.stringify({ discountCode: 'TENOFF', lines: [SOAP], pad: 'x'.repeat(40_000) }),
      }),
      { clientAddress: '10.0.1.99' },
    );
    expect(huge.status).toBe(413);
  });

  it('limits guesses of codes that do not exist from one address; a code that exists can be checked again and again', async () => {
    for (let i = 0; i < 10; i++) expect((await check({ discountCode: `GUESS${i}`, lines: [SOAP] }, '10.0.2.1')).status).toBe(409);
    const limited = await check({ discountCode: 'GUESS10', lines: [SOAP] }, '10.0.2.1');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    // Past the limit even a real code gets no answer, so guessing cannot go on through it.
    expect((await check({ discountCode: 'TENOFF', lines: [SOAP] }, '10.0.2.1')).status).toBe(429);
    // Another address checks a real code many times (the drawer re-checks as the cart changes).
    for (let i = 0; i < 15; i++) expect((await check({ discountCode: 'TENOFF', lines: [SOAP] }, '10.0.2.2')).status).toBe(200);
  });

  it('GET answers the offer (when on) and the rule for the shopper', async () => {
    expect(await expectJson(call(apiRequest('GET', '/api/discount')), 200)).toEqual({ offer: null, rule: SHOPPER_RULES.better });
    await shop.db.query(`update public.discount_offer set active = true, combines = true, threshold_cents = 5000, percent = 5`);
    expect(await expectJson(call(apiRequest('GET', '/api/discount')), 200)).toEqual({
      offer: { thresholdCents: 5000, percent: 5, combines: true },
      rule: SHOPPER_RULES.combines,
    });
    await shop.db.query(`update public.discount_offer set active = false`);
  });
});

describe('paying with a code (`discountCode` beside the payment’s fields)', () => {
  it('is priced on the server, charged and recorded to the cent, with each line’s share', async () => {
    const plain = await openCheckout(guest, [SOAP, SCRUBS]);
    const opened = await openCheckout(guest, [SOAP, SCRUBS], { discountCode: ' TenOff ', discountCents: 1_000_000 });
    expect(opened.totals.discountCents).toBe(Math.floor(((plain.totals.subtotalCents ?? 0) * 10 + 50) / 100));
    expect(opened.amountCents).toBe(opened.totals.totalCents);
    expect(opened.amountCents).toBeLessThan(plain.amountCents);
    await pay(opened);
    const { order } = await expectJson<{ order: { id: string } }>(
      call(apiRequest('POST', '/api/orders/confirm', { paymentIntentId: opened.paymentIntentId }), { jar: guest }),
      201,
    );
    const [row] = await shop.db.query<Record<string, number | string>>(
      `select o.discount_code, o.discount_cents, o.total_cents, i.amount_cents as charged,
              (select sum(discount_cents)::int from public.order_items where order_id = o.id) as lines
         from public.orders o join public.test_payment_intents i on i.id = o.payment_intent_id where o.id = $1`,
      [order.id],
    );
    expect(row).toEqual({
      discount_code: 'TENOFF',
      discount_cents: opened.totals.discountCents,
      total_cents: opened.amountCents,
      charged: opened.amountCents,
      lines: opened.totals.discountCents,
    });
  });

  it('a code that cannot be used opens no payment and says why; an unknown one counts as a guess', async () => {
    const first = await openCheckout(guest, [SOAP], { discountCode: 'GONE' });
    expect(first.totals.discountCents).toBeGreaterThan(0);
    const { rates } = await expectJson<{ rates: { object_id: string }[] }>(
      call(apiRequest('POST', '/api/shippo-rates', { toAddress: ADDRESS, lines: [SOAP] }), { jar: guest }),
      200,
    );
    const openWith = (discountCode: string, clientAddress: string) =>
      call(
        apiRequest('POST', '/api/create-payment-intent', {
          lines: [SOAP],
          address: ADDRESS,
          rateId: rates[0]?.object_id,
          discountCode,
        }),
        {
          jar: browser(),
          clientAddress,
        },
      );
    const [before] = await shop.db.query<{ n: number }>('select count(*)::int as n from public.test_payment_intents');
    expect(await problemOf(await openWith('GONE', '10.0.3.1'))).toEqual({
      status: 409,
      code: 'discount_refused',
      message: DISCOUNT_MESSAGES.usedUp('GONE'),
    });
    for (let i = 0; i < 10; i++) expect((await openWith(`WHAT${i}`, '10.0.3.2')).status).toBe(409);
    expect((await openWith('WHAT10', '10.0.3.2')).status).toBe(429);
    const [after] = await shop.db.query<{ n: number }>('select count(*)::int as n from public.test_payment_intents');
    expect(after?.n).toBe(before?.n);
  });
});

describe('a shopper who goes back from the payment to change the cart', () => {
  it('keeps a one-per-customer code: their own open payment is not a use against them, and the payment is updated', async () => {
    const shopper = browser();
    const email = 'once.each@example.com';
    const address = { ...ADDRESS, email };
    const opened = await openCheckout(shopper, [SOAP], { discountCode: 'ONCEEACH' }, address);
    expect(opened.totals.discountCents).toBeGreaterThan(0);
    // Back to the cart, one more soap: the drawer checks the code again, naming the payment it opened.
    const more = [{ ...SOAP, quantity: 2 }];
    const again = { discountCode: 'ONCEEACH', lines: more, email };
    expect(await problemOf(await check(again, '10.0.5.1'))).toMatchObject({
      message: DISCOUNT_MESSAGES.customerLimit('ONCEEACH'),
    });
    const checked = await expectJson<{ code: string; discountCents: number }>(
      check({ ...again, previousClientSecret: opened.client_secret }, '10.0.5.1'),
      200,
    );
    expect(checked).toMatchObject({ code: 'ONCEEACH' });
    // Only the browser given the payment's secret may set its use aside: its id with another secret counts for nothing.
    const forged = `${opened.paymentIntentId}_secret_forged`;
    expect(await problemOf(await check({ ...again, previousClientSecret: forged }, '10.0.5.1'))).toMatchObject({
      message: DISCOUNT_MESSAGES.customerLimit('ONCEEACH'),
    });
    // Paying for the changed cart updates the same payment and its hold: one use, charged the discounted total.
    const reopened = await openCheckout(
      shopper,
      more,
      { discountCode: 'ONCEEACH', previousClientSecret: opened.client_secret },
      address,
    );
    expect(reopened.paymentIntentId).toBe(opened.paymentIntentId);
    expect(reopened.totals.discountCents).toBe(checked.discountCents);
    await pay(reopened);
    await expectJson(
      call(apiRequest('POST', '/api/orders/confirm', { paymentIntentId: reopened.paymentIntentId }), { jar: shopper }),
      201,
    );
    // Once paid, the use is theirs: the same secret no longer sets it aside.
    expect(await problemOf(await check({ ...again, previousClientSecret: opened.client_secret }, '10.0.5.1'))).toMatchObject({
      message: DISCOUNT_MESSAGES.customerLimit('ONCEEACH'),
    });
  });
});

describe('the race for a code’s last uses, through the endpoints', () => {
  it('50 shoppers paying at once with a code limited to 10: 10 payments opened and 10 discounted orders; 40 told before they pay', async () => {
    const { rates } = await expectJson<{ rates: { object_id: string }[] }>(
      call(apiRequest('POST', '/api/shippo-rates', { toAddress: ADDRESS, lines: [SOAP] }), { jar: guest }),
      200,
    );
    const body = (i: number) => ({
      lines: [SOAP],
      address: { ...ADDRESS, email: `racer${i}@example.com` },
      rateId: rates[0]?.object_id,
      discountCode: 'race10',
    });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call(apiRequest('POST', '/api/create-payment-intent', body(i)), { jar: browser(), clientAddress: `10.9.0.${i}` }),
      ),
    );
    const opened: OpenedCheckout[] = [];
    const refused: unknown[] = [];
    for (const res of answers) {
      if (res.status === 200) opened.push((await res.json()) as OpenedCheckout);
      else refused.push({ status: res.status, ...((await res.json()) as { error: object }).error });
    }
    expect(opened).toHaveLength(10);
    expect(refused).toEqual(
      Array(40).fill({ status: 409, code: 'discount_refused', message: DISCOUNT_MESSAGES.usedUp('RACE10') }),
    );
    await Promise.all(opened.map((o) => pay(o)));
    const confirmed = await Promise.all(
      opened.map((o) => call(apiRequest('POST', '/api/orders/confirm', { paymentIntentId: o.paymentIntentId }), { jar: guest })),
    );
    expect(confirmed.map((r) => r.status)).toEqual(Array(10).fill(201));
    const [orders] = await shop.db.query<{ n: number; exact: number }>(
      `select count(*)::int as n, count(*) filter (where o.total_cents = i.amount_cents and o.discount_cents > 0)::int as exact
         from public.orders o join public.test_payment_intents i on i.id = o.payment_intent_id where o.discount_code = 'RACE10'`,
    );
    expect(orders).toEqual({ n: 10, exact: 10 });
  }, 60_000);
});
