/**
 * What one client address can hold of an item, through the endpoints (decision 007, issue 40): guests and signed-in
 * shoppers behind one address share its cap (HOLD_CAP × ADDRESS_LIMIT_FACTOR), so opening checkouts as a guest and
 * then as one account after another cannot keep an item from everyone; another address still buys. Its own shop, with
 * ADDRESS_LIMIT_FACTOR 2 (the other reliability files use 1000, under which one address may hold 5000).
 * tests/db/stock.test.ts covers the rule itself, checkouts at once among it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ADDRESS,
  apiRequest,
  type Browser,
  browser,
  call,
  expectJson,
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

beforeAll(async () => {
  shop = await startShop({ ADDRESS_LIMIT_FACTOR: '2' });
}, 120_000);
afterAll(stopShop);

const butter = (quantity: number): WireLine => ({ productId: 2, quantity, selectedColor: null, selectedSize: null });

/** Opens a checkout's payment from `clientAddress` as the drawer does: rates quoted, a payment opened for the first. */
async function checkoutFrom(clientAddress: string, jar: Browser, lines: WireLine[]) {
  const { rates } = await expectJson<{ rates: { object_id: string }[] }>(
    call(apiRequest('POST', '/api/shippo-rates', { toAddress: ADDRESS, lines }), { jar, clientAddress }),
    200,
  );
  const res = await call(
    apiRequest('POST', '/api/create-payment-intent', { lines, address: ADDRESS, rateId: rates[0]?.object_id }),
    { jar, clientAddress },
  );
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
}

const held = async () =>
  (
    await shop.db.query<{ n: number }>(
      `select coalesce(sum(quantity), 0)::int as n from public.stock_holds where product_id = 2 and expires_at > now()`,
    )
  )[0]?.n;

describe('one client address, guests and accounts alike', () => {
  it('holds at most 5 × ADDRESS_LIMIT_FACTOR of an item; its accounts are refused in words; another address buys', async () => {
    await shop.db.query(`insert into public.stock_levels (product_id, color, size, on_hand) values (2, '', '', 120)`);
    const here = '203.0.113.21';
    for (let i = 0; i < 2; i++) expect(await checkoutFrom(here, browser(), [butter(5)])).toMatchObject({ status: 200 });
    expect(await checkoutFrom(here, browser(), [butter(5)])).toMatchObject({
      status: 409,
      body: { error: { code: 'hold_limit' } },
    });
    const accounts = await Promise.all([1, 2, 3, 4].map((n) => signedIn(shop, `net${n}@example.com`)));
    for (const jar of accounts)
      expect(await checkoutFrom(here, jar, [butter(5)])).toEqual({
        status: 409,
        body: {
          error: {
            code: 'hold_limit',
            message:
              '10 of Turmeric Body Butter are already set aside in other checkouts from your network, the most we hold for one network at a time. Please try again when they lapse, within 15 minutes.',
          },
        },
      });
    expect(await held()).toBe(10);
    // The same accounts, and a guest, from another address: each may hold its own.
    const there = '198.51.100.21';
    expect(await checkoutFrom(there, accounts[0] ?? browser(), [butter(5)])).toMatchObject({ status: 200 });
    expect(await checkoutFrom(there, browser(), [butter(5)])).toMatchObject({ status: 200 });
    expect(await held()).toBe(20);
    const stock = await expectJson<{ available: Record<string, number> }>(call(apiRequest('GET', '/api/stock')), 200);
    expect(stock.available['2']).toBe(100);
  });
});
