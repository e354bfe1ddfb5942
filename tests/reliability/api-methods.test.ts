/**
 * Every /api answer is JSON: an unknown path is a JSON 404, a method an endpoint does not have a JSON 405 with Allow
 * (Astro alone answers both with its HTML 404 page), checked on every endpoint through src/middleware.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEARER_ENDPOINTS } from '@/server/http.server';
import {
  ADMIN_EMAIL,
  apiRequest,
  call,
  exportedMethods,
  ORIGIN,
  ROUTES,
  signedIn,
  startShop,
  stopShop,
  type TestShop,
} from './harness';

let shop: TestShop;
beforeAll(async () => {
  shop = await startShop();
}, 60_000);
afterAll(stopShop);

/** A concrete path for a route pattern: every parameter filled with `value`. */
const pathOf = (pattern: string, value = '1') => pattern.replace(/\[\w+\]/g, value);

describe('methods and paths under /api', () => {
  it('finds every endpoint module', () => {
    expect(ROUTES.length).toBeGreaterThanOrEqual(36);
    for (const route of ROUTES) expect(exportedMethods(route).length, route.pattern).toBeGreaterThan(0);
  });

  const unknown = ROUTES.flatMap((route) =>
    ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND']
      .filter((m) => !exportedMethods(route).includes(m))
      .map((method) => [route.pattern, method, exportedMethods(route)] as const),
  );

  it.each(unknown)('%s %s → JSON 405 naming the methods it has', async (pattern, method, methods) => {
    const res = await call(apiRequest(method, pathOf(pattern)));
    expect(res.status).toBe(405);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const message = expect.stringContaining(method);
    expect(await res.json()).toEqual(
      // The spec's newsletter calls answer a refusal in the spec's shape.
      BEARER_ENDPOINTS.has(pattern)
        ? { error: message, code: 'method_not_allowed' }
        : { error: { code: 'method_not_allowed', message } },
    );
    const allow = (res.headers.get('allow') ?? '').split(', ');
    expect(allow).toEqual(expect.arrayContaining(methods));
    expect(allow.includes('HEAD')).toBe(methods.includes('GET'));
  });

  it('a method an endpoint has still reaches it; HEAD goes to GET', async () => {
    expect((await call(apiRequest('GET', '/api/health'))).status).toBe(200);
    const head = await call(apiRequest('HEAD', '/api/health'));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it.each(['/api/nope', '/api/cart/extra', '/api/orders/1/label/x', '/api/'])('%s → JSON 404', async (path) => {
    for (const method of ['GET', 'POST', 'DELETE']) {
      const res = await call(apiRequest(method, path));
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'There is no such API endpoint.' } });
    }
  });

  it('the spec’s newsletter calls answer the middleware’s refusals in the spec’s shape too', async () => {
    const crossSite = await call(
      apiRequest(
        'POST',
        '/api/newsletter-subscribe',
        { email: 'a@example.com' },
        { origin: 'https://evil.example', cookie: 'x=1' },
      ),
    );
    expect(crossSite.status).toBe(403);
    expect(await crossSite.json()).toEqual({
      error: 'This request must come from the shop’s own pages.',
      code: 'forbidden_origin',
    });
    const nul = await call(apiRequest('GET', '/api/newsletter-status?userId=%00'));
    expect(nul.status).toBe(400);
    expect(await nul.json()).toEqual({ error: 'The address contains a NUL character.', code: 'invalid_text' });
  });

  it('an on-demand page takes no state-changing request from another site either (Astro’s own check is off)', async () => {
    const post = (origin?: string) =>
      call(
        new Request(`${ORIGIN}/admin`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...(origin ? { origin } : {}) },
          body: 'a=1',
        }),
      );
    for (const origin of ['https://evil.example', undefined]) expect((await post(origin)).status).toBe(403);
    // From our own pages it reaches the page (here the harness's stand-in for Astro's page rendering).
    expect((await post(ORIGIN)).status).not.toBe(403);
    expect((await call(new Request(`${ORIGIN}/admin`, { headers: { origin: 'https://evil.example' } }))).status).not.toBe(403);
  });

  it('no admin endpoint answers a request another site made, even a GET with the admin’s cookie (an export, a slip)', async () => {
    const admin = await signedIn(shop, ADMIN_EMAIL);
    const gets = ROUTES.filter((r) => r.pattern.startsWith('/api/admin/') && exportedMethods(r).includes('GET'));
    expect(gets.map((r) => r.pattern)).toEqual(expect.arrayContaining(['/api/admin/orders.csv', '/api/admin/subscribers.csv']));
    for (const route of gets) {
      const get = (site: string) =>
        call(apiRequest('GET', pathOf(route.pattern), undefined, { 'sec-fetch-site': site }), { jar: admin });
      for (const site of ['cross-site', 'same-site']) {
        const res = await get(site);
        expect(res.status, `${route.pattern} ${site}`).toBe(403);
        expect(await res.json()).toMatchObject({ error: { code: 'forbidden_origin' } });
      }
      // From the shop's own pages, a bookmark or a typed address: the endpoint answers (whatever it answers).
      for (const site of ['same-origin', 'none']) expect((await get(site)).status, `${route.pattern} ${site}`).not.toBe(403);
    }
  });

  it('a state-changing request from another site is a JSON 403 whatever its content type (not Astro’s plain text)', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x', null]) {
      const res = await call(
        new Request('http://127.0.0.1:4321/api/cart', {
          method: 'PUT',
          headers: { origin: 'https://evil.example', ...(type ? { 'content-type': type } : {}) },
          body: 'lines=1',
        }),
      );
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: { code: 'forbidden_origin' } });
    }
  });

  const bodied = ROUTES.flatMap((route) =>
    ['POST', 'PUT', 'PATCH', 'DELETE']
      .filter((m) => exportedMethods(route).includes(m) && route.pattern !== '/api/stripe-webhook')
      .map((method) => [route.pattern, method] as const),
  );

  it.each(bodied)(
    '%s %s: JSON nested 8000 deep (16 KB, under every limit) is a JSON answer, never a 500',
    async (pattern, method) => {
      const deep = `${'['.repeat(8000)}${']'.repeat(8000)}`;
      const res = await call(
        new Request(`${ORIGIN}${pathOf(pattern)}`, {
          method,
          headers: { origin: ORIGIN, 'content-type': 'application/json' },
          body: deep,
        }),
      );
      // A 400 where the body is read (logout and the session check read none).
      expect(res.status, await res.clone().text()).toBeLessThan(500);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    },
  );
});
