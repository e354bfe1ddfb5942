/**
 * The admin's date filters take the days an admin could mean and refuse the rest in words: a day outside the years the
 * shop can have orders in (`?from=0001-01-01&to=9999-12-31`, as a pen-test sent) is a 400 with the reason, never a 500,
 * and exports nothing. The orders list (a page, whose malformed filters are left out) and the export share the rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderListQuery } from '@/features/admin/orders/order-admin';
import { exportRange } from '@/features/admin/sales/sales';
import { asService } from '@/server/db/roles.server';
import { ADMIN_EMAIL, apiRequest, type Browser, call, signedIn, startShop, stopShop, type TestShop } from './harness';

let shop: TestShop;
let admin: Browser;

beforeAll(async () => {
  shop = await startShop();
  admin = await signedIn(shop, ADMIN_EMAIL);
}, 60_000);
afterAll(() => stopShop());

const exportsRecorded = async () =>
  (
    await asService(shop.db, (tx) =>
      tx.query<{ n: number }>(`select count(*)::int as n from public.admin_actions where action = 'orders.export'`),
    )
  )[0]?.n;

describe('GET /api/admin/orders.csv with days outside a sane range', () => {
  it('answers 400 in words, not 500, and exports nothing', async () => {
    const before = await exportsRecorded();
    for (const query of [
      '?from=0001-01-01&to=9999-12-31',
      '?from=0001-01-01',
      '?to=9999-12-31',
      '?from=1969-12-31',
      '?to=2201-01-01',
      '?from=0000-01-01',
      '?from=275760-09-13',
    ]) {
      const res = await call(apiRequest('GET', `/api/admin/orders.csv${query}`), { jar: admin });
      expect(res.status, query).toBe(400);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code, query).toBe('invalid_request');
      expect(body.error.message, query).toMatch(/^(from|to) must be a day from 1970-01-01 to 2200-12-31|must be a day written/);
    }
    expect(await exportsRecorded()).toBe(before);
  });

  it('still exports the widest sane range', async () => {
    const res = await call(apiRequest('GET', '/api/admin/orders.csv?from=1970-01-01&to=2200-12-31'), { jar: admin });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    await res.text();
  });
});

describe('the date rule the admin pages share', () => {
  it('the export refuses a day before 1970 or after 2200 with the range it takes', () => {
    const read = (query: string) => exportRange(new URLSearchParams(query), new Date('2026-11-25T12:00:00Z'), 'UTC');
    expect(read('from=0001-01-01&to=9999-12-31')).toEqual({
      ok: false,
      message: 'from must be a day from 1970-01-01 to 2200-12-31.',
    });
    expect(read('to=9999-12-31')).toEqual({ ok: false, message: 'to must be a day from 1970-01-01 to 2200-12-31.' });
    expect(read('from=1970-01-01&to=2200-12-31')).toEqual({ ok: true, range: { from: '1970-01-01', to: '2200-12-31' } });
  });

  it('the orders list leaves such a day out, as it does any malformed filter', () => {
    expect(orderListQuery(new URLSearchParams('from=0001-01-01&to=9999-12-31'))).toMatchObject({ from: null, to: null });
    expect(orderListQuery(new URLSearchParams('from=1970-01-01&to=2200-12-31'))).toMatchObject({
      from: '1970-01-01',
      to: '2200-12-31',
    });
  });
});
