/**
 * The admin's discount endpoints attacked through src/middleware.ts, as the built server runs them: strangers, another
 * site's page riding the owner's cookie, bodies too large or of the wrong kind, fields the owner may not set, ids of
 * rows that are not codes, and owners clicking at once. Each refusal changes no row (the harness's digest covers the
 * discount tables and the activity log).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminCode } from '@/features/admin/discounts/discounts-admin';
import { asService } from '@/server/db/roles.server';
import {
  ADMIN_EMAIL,
  apiRequest,
  type Browser,
  browser,
  call,
  expectJson,
  ORIGIN,
  purchase,
  signedIn,
  startShop,
  stopShop,
  type TestShop,
  tableDigest,
} from './harness';

let shop: TestShop;
let owner: Browser;
let shopper: Browser;
let order: string;
beforeAll(async () => {
  shop = await startShop({ ADDRESS_LIMIT_FACTOR: '1000' });
  [owner, shopper] = await Promise.all([signedIn(shop, ADMIN_EMAIL), signedIn(shop, 'shopper@example.com')]);
  order = (await purchase(shopper)).orderId;
}, 120_000);
afterAll(stopShop);

let n = 0;
const body = (over: Record<string, unknown> = {}) => ({
  code: `ATTACK${++n}`,
  kind: 'percent',
  percent: 10,
  minSubtotalCents: null,
  startsAt: null,
  endsAt: null,
  usageLimit: null,
  perCustomerLimit: null,
  productIds: [],
  categories: [],
  ...over,
});
const create = async (over: Record<string, unknown> = {}) =>
  (await expectJson<{ code: AdminCode }>(call(apiRequest('POST', '/api/admin/discounts', body(over)), { jar: owner }), 201)).code;
const STRANGER = { error: { code: 'not_found', message: 'Not found.' } };

describe('the discount endpoints against strangers and other sites', () => {
  it('a guest and a shopper get the stranger’s 404 from every one, and nothing changes', async () => {
    const code = await create();
    const before = await tableDigest(shop.db);
    const requests = (): [string, string, unknown][] => [
      ['GET', '/api/admin/discounts', undefined],
      ['POST', '/api/admin/discounts', body()],
      ['GET', `/api/admin/discounts/${code.id}`, undefined],
      ['POST', `/api/admin/discounts/${code.id}`, { ...body(), percent: 100 }],
      ['POST', `/api/admin/discounts/${code.id}/status`, { to: 'ended' }],
      ['GET', '/api/admin/discounts/offer', undefined],
      ['POST', '/api/admin/discounts/offer', { thresholdCents: 0, percent: 100, active: true, combines: true }],
    ];
    for (const jar of [browser(), shopper])
      for (const [method, path, sent] of requests()) {
        const res = await call(apiRequest(method, path, sent), { jar });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(await res.json()).toEqual(STRANGER);
      }
    expect(await tableDigest(shop.db)).toEqual(before);
  });

  it('another site’s page cannot use the owner’s cookie: a cross-site POST, one with no Origin, a form post', async () => {
    const code = await create();
    const before = await tableDigest(shop.db);
    const attempts = [
      apiRequest('POST', '/api/admin/discounts', body(), { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }),
      apiRequest('POST', `/api/admin/discounts/${code.id}/status`, { to: 'ended' }, { origin: 'https://evil.example' }),
      apiRequest(
        'POST',
        '/api/admin/discounts/offer',
        { thresholdCents: 0, percent: 100, active: true, combines: false },
        {
          origin: 'null',
        },
      ),
      // A page of the same site on another origin (another port, a sibling host) is another page's request too.
      apiRequest(
        'POST',
        `/api/admin/discounts/${code.id}/status`,
        { to: 'paused' },
        {
          origin: 'http://127.0.0.1:4322',
          'sec-fetch-site': 'same-site',
        },
      ),
      new Request(`${ORIGIN}/api/admin/discounts/${code.id}/status`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ to: 'ended' }),
      }),
      new Request(`${ORIGIN}/api/admin/discounts`, {
        method: 'POST',
        headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
        body: 'code=FREE100&kind=percent&percent=100',
      }),
    ];
    for (const request of attempts) {
      const res = await call(request, { jar: owner });
      expect(res.status, request.headers.get('origin') ?? 'no origin').toBe(403);
      expect(await res.json()).toMatchObject({ error: { code: 'forbidden_origin' } });
    }
    // A read another site's page made (a link, an image) with the owner's cookie is refused too.
    const peek = await call(apiRequest('GET', '/api/admin/discounts', undefined, { 'sec-fetch-site': 'cross-site' }), {
      jar: owner,
    });
    expect(peek.status).toBe(403);
    expect(await tableDigest(shop.db)).toEqual(before);
  });

  it('a body over the limit is refused before it is read, declared or streamed; a form body is not JSON', async () => {
    const before = await tableDigest(shop.db);
    const huge = JSON.stringify(body({ categories: Array.from({ length: 3000 }, () => 'Body Soap') }));
    const declared = await call(
      new Request(`${ORIGIN}/api/admin/discounts`, {
        method: 'POST',
        headers: { origin: ORIGIN, 'content-type': 'application/json', 'content-length': String(huge.length) },
        body: huge,
      }),
      { jar: owner },
    );
    expect(declared.status).toBe(413);
    const streamed = await call(
      new Request(`${ORIGIN}/api/admin/discounts/offer`, {
        method: 'POST',
        headers: { origin: ORIGIN, 'content-type': 'application/json' },
        body: new ReadableStream({
          start(controller) {
            for (let i = 0; i < 40; i++) controller.enqueue(new TextEncoder().encode(' '.repeat(1024)));
            controller.close();
          },
        }),
        duplex: 'half',
      } as RequestInit),
      { jar: owner },
    );
    expect(streamed.status).toBe(413);
    const form = await call(
      new Request(`${ORIGIN}/api/admin/discounts`, {
        method: 'POST',
        headers: { origin: ORIGIN, 'content-type': 'text/plain' },
        body: JSON.stringify(body()),
      }),
      { jar: owner },
    );
    expect(form.status).toBe(415);
    expect(await tableDigest(shop.db)).toEqual(before);
  });
});

describe('the discount endpoints against an owner’s mistakes and tricks', () => {
  it('markup for a code is refused without being echoed; fields the owner may not set are ignored', async () => {
    const before = await tableDigest(shop.db);
    const res = await call(apiRequest('POST', '/api/admin/discounts', body({ code: '<img src=x onerror=alert(1)>' })), {
      jar: owner,
    });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).not.toContain('<img');
    expect(JSON.parse(text)).toEqual({
      error: { code: 'invalid_request', message: 'A code is 3 to 32 letters or digits (and - or _), such as SUMMER10.' },
    });
    expect(await tableDigest(shop.db)).toEqual(before);
    // A status, an id, a count of uses or a creation time sent along are not the owner's to set.
    const forged = await create({
      id: '00000000-0000-4000-8000-000000000001',
      status: 'ended',
      held: 99,
      used: 99,
      createdAt: '2000-01-01T00:00:00Z',
    });
    expect(forged).toMatchObject({ status: 'active', held: 0, used: 0 });
    expect(forged.id).not.toBe('00000000-0000-4000-8000-000000000001');
    expect(Date.parse(forged.createdAt)).toBeGreaterThan(Date.parse('2026-01-01'));
    // An edit cannot rename the code (orders and uses name it).
    const renamed = await expectJson<{ code: AdminCode }>(
      call(apiRequest('POST', `/api/admin/discounts/${forged.id}`, { ...body({ code: 'HIJACKED' }), percent: 20 }), {
        jar: owner,
      }),
      200,
    );
    expect(renamed.code).toMatchObject({ code: forged.code, percent: 20 });
  });

  it('ids of other rows, or of none, are no code: 404, and nothing changes', async () => {
    const before = await tableDigest(shop.db);
    for (const id of [order, randomUUID(), '1', '1%20or%201=1', '..%2Foffer', encodeURIComponent("' or ''='")]) {
      for (const [method, path, sent] of [
        ['GET', `/api/admin/discounts/${id}`, undefined],
        ['POST', `/api/admin/discounts/${id}`, body()],
        ['POST', `/api/admin/discounts/${id}/status`, { to: 'ended' }],
      ] as const) {
        const res = await call(apiRequest(method, path, sent), { jar: owner });
        expect(res.status, `${method} ${path}`).toBe(404);
      }
    }
    expect(await tableDigest(shop.db)).toEqual(before);
  });

  it('one code however many owners create it at once, in any case; one end however many click', async () => {
    const name = `RACE${Date.now().toString(36).toUpperCase()}`;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call(apiRequest('POST', '/api/admin/discounts', body({ code: i % 2 ? name.toLowerCase() : name })), { jar: owner }),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    const [created] = await asService(shop.db, (tx) =>
      tx.query<{ id: string; n: number }>(
        `select min(id::text) as id, count(*)::int as n from public.discount_codes where code = $1`,
        [name],
      ),
    );
    expect(created?.n).toBe(1);
    const ends = await Promise.all(
      Array.from({ length: 6 }, () =>
        call(apiRequest('POST', `/api/admin/discounts/${created?.id}/status`, { to: 'ended' }), { jar: owner }).then((r) =>
          r.json(),
        ),
      ),
    );
    expect(ends.filter((a) => (a as { changed?: boolean }).changed === true)).toHaveLength(1);
    const actions = await asService(shop.db, (tx) =>
      tx.query<{ action: string; admin_email: string }>(
        `select action, admin_email from public.admin_actions where target = $1 order by id`,
        [`code ${name}`],
      ),
    );
    expect(actions).toEqual([
      { action: 'discount.create', admin_email: ADMIN_EMAIL },
      { action: 'discount.end', admin_email: ADMIN_EMAIL },
    ]);
  });
});
