/**
 * Money and fields the client must not set, through the endpoints: prices, totals and amounts a browser sends never
 * change what is charged or stored, and fields such as user_id, status, is_approved or total are ignored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderByToken } from '@/features/orders/order-page.server';
import { asService } from '@/server/db/roles.server';
import {
  ADDRESS,
  apiRequest,
  type Browser,
  call,
  expectJson,
  openCheckout,
  pay,
  SOAP,
  signedIn,
  startShop,
  stopShop,
  type TestShop,
} from './harness';

let shop: TestShop;
let ann: Browser;
let annId: string;
let benId: string;

beforeAll(async () => {
  shop = await startShop({ ADDRESS_LIMIT_FACTOR: '1000' });
  ann = await signedIn(shop, 'ann@example.com');
  await signedIn(shop, 'ben@example.com');
  const users = await shop.db.query<{ id: string; email: string }>('select id::text, email from auth.users');
  annId = users.find((u) => u.email === 'ann@example.com')?.id ?? '';
  benId = users.find((u) => u.email === 'ben@example.com')?.id ?? '';
}, 120_000);
afterAll(stopShop);

const service = <T extends object>(sql: string, params: unknown[] = []) => asService(shop.db, (tx) => tx.query<T>(sql, params));

describe('client-sent money', () => {
  it('prices, totals and amounts in the checkout body change nothing: the intent is for the catalogue’s amount', async () => {
    const honest = await openCheckout(ann);
    const cheat = await openCheckout(
      ann,
      [{ ...SOAP, price: 1, priceCents: 1, unitPrice: 0, total: 1 } as typeof SOAP],
      { amount: 1, amountCents: 1, total: 1, totalCents: 1, shippingCents: 0, taxCents: 0, subtotal: 0, currency: 'jpy' },
      { ...ADDRESS, shippingCents: 0 },
    );
    expect(cheat.amountCents).toBe(honest.amountCents);
    expect(cheat.totals).toEqual(honest.totals);
    // 2 × Turmeric Face Soap, priced by the catalogue; never the 1 cent sent.
    expect(honest.amountCents).toBeGreaterThan(100);
    const [intent] = await service<{ amount_cents: number; currency: string }>(
      'select amount_cents, currency from public.test_payment_intents where id = $1',
      [cheat.paymentIntentId],
    );
    expect(intent).toEqual({ amount_cents: honest.amountCents, currency: 'usd' });
  });

  it('a confirmation carrying total, status and user_id records the paid amount, a new status and the caller', async () => {
    const checkout = await openCheckout(ann);
    await pay(checkout);
    const { order } = await expectJson<{ order: { id: string } }>(
      call(
        apiRequest('POST', '/api/orders/confirm', {
          paymentIntentId: checkout.paymentIntentId,
          total: 1,
          total_cents: 1,
          status: 'delivered',
          user_id: benId,
          userId: benId,
        }),
        { jar: ann },
      ),
      201,
    );
    const [row] = await service<{ total_cents: number; status: string; user_id: string }>(
      'select total_cents, status, user_id::text from public.orders where id = $1',
      [order.id],
    );
    expect(row).toEqual({ total_cents: checkout.amountCents, status: 'processing', user_id: annId });
  });

  it('a shipping rate id is looked up, never priced by the browser: an unknown or forged one is refused', async () => {
    for (const rateId of ['rate_free', 'rate_0', 'x'.repeat(200)]) {
      const res = await call(apiRequest('POST', '/api/create-payment-intent', { lines: [SOAP], address: ADDRESS, rateId }), {
        jar: ann,
      });
      expect(res.status, rateId).toBeGreaterThanOrEqual(400);
      expect(res.status, rateId).toBeLessThan(500);
    }
  });
});

describe('fields a shopper may not set', () => {
  it('a review with is_approved, verified, user_id and author is pending, unverified and the caller’s', async () => {
    await expectJson(
      call(
        apiRequest('POST', '/api/reviews', {
          productId: 3,
          rating: 5,
          comment: 'Approve me',
          is_approved: true,
          isApproved: true,
          verified: true,
          user_id: benId,
          status: 'approved',
        }),
        { jar: ann },
      ),
      201,
    );
    const rows = await service<{ is_approved: boolean; verified: boolean; user_id: string }>(
      `select is_approved, verified, user_id::text from public.product_reviews where comment = 'Approve me'`,
    );
    expect(rows).toEqual([{ is_approved: false, verified: false, user_id: annId }]);
  });

  it('cart lines and favorites carrying user_id are saved for the caller', async () => {
    await call(apiRequest('PUT', '/api/cart', { lines: [{ ...SOAP, user_id: benId }], user_id: benId }), { jar: ann });
    await call(apiRequest('POST', '/api/favorites', { productId: 4, user_id: benId, userId: benId }), { jar: ann });
    expect(await service('select user_id::text from public.user_carts')).toEqual([{ user_id: annId }]);
    expect(await service('select user_id::text from public.user_favorites')).toEqual([{ user_id: annId }]);
  });

  it('a sign-up with role, is_admin or a confirmed flag is an ordinary, unconfirmed account', async () => {
    await call(
      apiRequest('POST', '/api/auth/signup', {
        email: 'eve@example.com',
        password: 'lavender-fields-42',
        firstName: 'Eve',
        lastName: 'E',
        role: 'service_role',
        is_admin: true,
        email_confirmed_at: '2020-01-01T00:00:00Z',
      }),
    );
    expect(await service(`select count(*)::int as n from public.shop_admins`)).toEqual([{ n: 0 }]);
    const login = await call(apiRequest('POST', '/api/auth/login', { email: 'eve@example.com', password: 'lavender-fields-42' }));
    expect(login.status).toBeGreaterThanOrEqual(400);
  });
});

describe('shipping is priced where the ZIP code is', () => {
  const beverlyHillsGa = { ...ADDRESS, city: 'Beverly Hills', state: 'GA', zip: '90210' };
  const message = 'ZIP code 90210 is in California, not Georgia. Please check the ZIP code and state.';

  it('a quote for a ZIP code outside its state is a 400 naming both, and quotes nothing', async () => {
    const before = await shop.db.query<{ n: number }>('select count(*)::int as n from public.shipping_quotes');
    const res = await call(apiRequest('POST', '/api/shippo-rates', { toAddress: beverlyHillsGa, lines: [SOAP] }));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { message } });
    expect(await shop.db.query('select count(*)::int as n from public.shipping_quotes')).toEqual(before);
  });

  it('the payment refuses the same address, even with a rate quoted for a real Georgia address', async () => {
    const savannah = { ...ADDRESS, city: 'Savannah', state: 'GA', zip: '31401' };
    const { rates } = await expectJson<{ rates: { object_id: string }[] }>(
      call(apiRequest('POST', '/api/shippo-rates', { toAddress: savannah, lines: [SOAP] }), { jar: ann }),
      200,
    );
    const res = await call(
      apiRequest('POST', '/api/create-payment-intent', { lines: [SOAP], address: beverlyHillsGa, rateId: rates[0]?.object_id }),
      { jar: ann },
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { message } });
  });
});

describe('the paying browser’s link to its order', () => {
  it('is given only with the payment’s client secret, and opens that order’s page', async () => {
    const checkout = await openCheckout(ann);
    await pay(checkout);
    // The first confirmation records the order (201); the others answer the same order (200).
    const confirm = async (extra: Record<string, unknown>) => {
      const res = await call(apiRequest('POST', '/api/orders/confirm', { paymentIntentId: checkout.paymentIntentId, ...extra }), {
        jar: ann,
      });
      expect([200, 201]).toContain(res.status);
      return (await res.json()) as { order: { id: string; number: string; url: string | null } };
    };
    const bare = await confirm({});
    expect(bare.order.number).toBe(`ORD-${bare.order.id.slice(-6).toUpperCase()}`);
    expect(bare.order.url).toBeNull();
    expect((await confirm({ clientSecret: `${checkout.paymentIntentId}_secret_guess` })).order.url).toBeNull();
    expect((await confirm({ clientSecret: 'pi_other_secret_x' })).order.url).toBeNull();
    const { order } = await confirm({ clientSecret: checkout.client_secret });
    expect(order.url).toMatch(/^\/order\?token=[\w-]{20,}$/);
    const token = new URLSearchParams(order.url?.split('?')[1]).get('token') ?? '';
    expect((await orderByToken(shop.db, token))?.id).toBe(order.id);
    // Only its hash is kept.
    const stored = await shop.db.query<{ token_hash: string }>('select token_hash from public.order_access_tokens');
    expect(stored.map((r) => r.token_hash)).not.toContain(token);
  });
});
