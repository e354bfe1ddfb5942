/**
 * One shopper cannot read or change another's cart, favorites, likes, reviews or orders through any endpoint. Ann
 * fills all of them; Ben then calls every endpoint that takes or names such a row, and Ann's rows are compared before
 * and after. The table-level probe (the `authenticated` role with another shopper's claims, no server code in the
 * way) is tests/db/rls.test.ts, on both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asService } from '@/server/db/roles.server';
import {
  ADDRESS,
  apiRequest,
  type Browser,
  browser,
  call,
  expectJson,
  purchase,
  SOAP,
  signedIn,
  startShop,
  stopShop,
  type TestShop,
} from './harness';

let shop: TestShop;
let ann: Browser;
let ben: Browser;
let annId: string;
let annOrder: { orderId: string; checkout: { paymentIntentId: string; client_secret: string } };

const service = <T extends object>(sql: string, params: unknown[] = []) => asService(shop.db, (tx) => tx.query<T>(sql, params));

/** Everything of Ann's, as the superuser sees it. */
async function annsRows() {
  const of = (table: string) => service(`select * from public.${table} where user_id = $1 order by 1, 2`, [annId]);
  return {
    carts: await of('user_carts'),
    favorites: await of('user_favorites'),
    likes: await of('product_likes'),
    reviews: await of('product_reviews'),
    orders: await of('orders'),
    items: await service('select i.* from public.order_items i join public.orders o on o.id = i.order_id where o.user_id = $1', [
      annId,
    ]),
    newsletter: await service('select * from public.newsletter_subscribers'),
  };
}

beforeAll(async () => {
  shop = await startShop({ ADDRESS_LIMIT_FACTOR: '1000' });
  [ann, ben] = await Promise.all([signedIn(shop, 'ann@example.com'), signedIn(shop, 'ben@example.com')]);
  const [row] = await service<{ id: string }>(`select id::text from auth.users where email = 'ann@example.com'`);
  annId = row?.id ?? '';
  await expectJson(call(apiRequest('POST', '/api/favorites', { productId: 4 }), { jar: ann }), 201);
  await expectJson(call(apiRequest('PUT', '/api/likes/5'), { jar: ann }), 200);
  await expectJson(
    call(apiRequest('POST', '/api/reviews', { productId: 3, rating: 4, comment: 'Ann’s pending' }), { jar: ann }),
    201,
  );
  await expectJson(call(apiRequest('POST', '/api/newsletter', { email: 'ann@example.com' }), { jar: ann }), 201).catch(() =>
    expectJson(call(apiRequest('POST', '/api/newsletter', { email: 'ann@example.com' }), { jar: ann }), 200),
  );
  annOrder = await purchase(ann);
  // After the purchase, which empties the saved cart.
  await expectJson(call(apiRequest('PUT', '/api/cart', { lines: [SOAP] }), { jar: ann }), 200);
}, 120_000);
afterAll(stopShop);

describe('shopper B against shopper A’s rows, through every endpoint', () => {
  it('Ann’s rows are all there to begin with', async () => {
    const rows = await annsRows();
    for (const [name, list] of Object.entries(rows)) expect(list.length, name).toBeGreaterThan(0);
  });

  it('reads show Ben none of Ann’s rows', async () => {
    expect(await expectJson(call(apiRequest('GET', '/api/cart'), { jar: ben }), 200)).toEqual({ lines: [] });
    expect(await expectJson(call(apiRequest('GET', '/api/favorites'), { jar: ben }), 200)).toEqual({ favorites: [] });
    const likes = await expectJson<Record<string, unknown>>(call(apiRequest('GET', '/api/likes?ids=5'), { jar: ben }), 200);
    expect(JSON.stringify(likes)).not.toMatch(/"liked":\s*true|"mine":\s*true/);
    const reviews = await expectJson(call(apiRequest('GET', '/api/reviews?productId=3'), { jar: ben }), 200);
    expect(JSON.stringify(reviews)).not.toContain('Ann’s pending');
    // Ann herself sees her pending review: the check above can fail.
    const own = await expectJson(call(apiRequest('GET', '/api/reviews?productId=3'), { jar: ann }), 200);
    expect(JSON.stringify(own)).toContain('Ann’s pending');
    const orders = await expectJson(call(apiRequest('GET', '/api/orders'), { jar: ben }), 200);
    expect(JSON.stringify(orders)).not.toContain(annOrder.orderId);
    expect(JSON.stringify(await expectJson(call(apiRequest('GET', '/api/orders'), { jar: ann }), 200))).toContain(
      annOrder.orderId,
    );
    // The checkout's prefill: Ben has no order, so no last address; Ann's is hers (the check above can fail).
    expect(await expectJson(call(apiRequest('GET', '/api/checkout/prefill'), { jar: ben }), 200)).toMatchObject({
      lastAddress: null,
    });
    expect(await expectJson(call(apiRequest('GET', '/api/checkout/prefill'), { jar: ann }), 200)).toMatchObject({
      lastAddress: { address: ADDRESS.street1 },
    });
    expect(await expectJson(call(apiRequest('GET', `/api/orders/${annOrder.orderId}/label`), { jar: ben }), 404)).toEqual({
      error: { code: 'not_found', message: 'No such order.' },
    });
    expect(await expectJson(call(apiRequest('GET', `/api/newsletter-status?userId=${annId}`), { jar: ben }), 403)).toMatchObject({
      code: 'forbidden',
    });
  });

  it('writes by Ben change nothing of Ann’s, and nothing of hers is answered back', async () => {
    const before = await annsRows();
    const answers: [string, Response][] = [];
    const send = async (method: string, path: string, body?: unknown, jar = ben) =>
      answers.push([`${method} ${path}`, await call(apiRequest(method, path, body), { jar })]);
    await send('PUT', '/api/cart', { lines: [] });
    await send('DELETE', '/api/favorites/4');
    await send('DELETE', '/api/favorites');
    await send('DELETE', '/api/likes/5');
    await send('POST', '/api/create-shipment', { orderId: annOrder.orderId });
    await send('POST', '/api/orders/confirm', { paymentIntentId: annOrder.checkout.paymentIntentId });
    await send('POST', '/api/newsletter-subscribe', { email: 'ann@example.com', userId: annId });
    await send('DELETE', '/api/newsletter', { email: 'ann@example.com' });
    for (const admin of ['cancel', 'refund', 'retry', 'status', 'resend-confirmation', 'address'])
      await send('POST', `/api/admin/orders/${annOrder.orderId}/${admin}`, { status: 'shipped', amountCents: 100 });
    await send('GET', `/api/admin/orders/${annOrder.orderId}/label`);
    // A guest (no cookie) gets no further.
    await send('POST', '/api/create-shipment', { orderId: annOrder.orderId }, browser());
    await send('GET', `/api/orders/${annOrder.orderId}/label`, undefined, browser());

    expect(await annsRows()).toEqual(before);
    const texts = new Map<string, string>();
    for (const [what, res] of answers) {
      expect(res.status, what).toBeLessThan(500);
      const text = await res.text();
      texts.set(what, `${res.status} ${text}`);
      // Ben never learns Ann's order number, address or e-mail.
      expect(text, what).not.toContain(annOrder.orderId);
      expect(text, what).not.toContain('ann.lee@example.com');
      expect(text, what).not.toContain('5 Elm St');
    }
    // Confirming Ann's payment as Ben finds no checkout of his: it neither moves her order nor names it.
    expect(texts.get('POST /api/orders/confirm')).toBe(
      '404 {"error":{"code":"order_not_recorded","message":"No checkout was found for this payment."}}',
    );
  });
});
