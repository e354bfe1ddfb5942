/**
 * Every admin endpoint walked as a guest, a shopper, an editor, an admin and from another site, through
 * src/middleware.ts as the built server runs them. The catalogue editor's endpoints (/api/admin/catalogue/…) answer
 * editors and admins only; every other admin endpoint answers an editor exactly what it answers a stranger (the 404);
 * another site's request gets the middleware's 403 whoever's cookie it carries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asService } from '@/server/db/roles.server';
import {
  ADMIN_EMAIL,
  apiRequest,
  type Browser,
  browser,
  call,
  exportedMethods,
  ROUTES,
  signedIn,
  startShop,
  stopShop,
  type TestShop,
} from './harness';

let shop: TestShop;
let people: { shopper: Browser; editor: Browser; admin: Browser };
beforeAll(async () => {
  shop = await startShop();
  const editorEmail = 'editor@example.com';
  people = {
    shopper: await signedIn(shop, 'shopper@example.com'),
    editor: await signedIn(shop, editorEmail),
    admin: await signedIn(shop, ADMIN_EMAIL),
  };
  await asService(shop.db, (tx) =>
    tx.query(`insert into public.shop_editors (user_id, granted_by_email) select id, $2 from auth.users where email = $1`, [
      editorEmail,
      ADMIN_EMAIL,
    ]),
  );
}, 90_000);
afterAll(stopShop);

/** A concrete path for an admin route: real names where the route takes a product or a picture. */
const pathOf = (pattern: string) =>
  pattern
    .replace('/products/[slug]', '/products/03-clinical-scrubs')
    .replace('/pictures/[name]', '/pictures/clinical-scrubs.svg')
    .replace(/\[\w+\]/g, '1');

const adminRoutes = ROUTES.filter((r) => r.pattern.startsWith('/api/admin/'));
const isEditorRoute = (pattern: string) => pattern.startsWith('/api/admin/catalogue/');
const calls = adminRoutes.flatMap((route) =>
  exportedMethods(route).map((method) => ({ route: route.pattern, method, path: pathOf(route.pattern) })),
);
/** A request that changes nothing when it reaches the endpoint: an empty JSON body is refused by every POST. */
const request = (method: string, path: string, headers: Record<string, string> = {}) =>
  apiRequest(method, path, method === 'GET' ? undefined : {}, headers);

const STRANGER = { error: { code: 'not_found', message: 'Not found.' } };

describe('the catalogue editor’s endpoints, and the rest of the admin’s', () => {
  it('finds the editor’s endpoints', () => {
    expect(calls.filter((c) => isEditorRoute(c.route)).map((c) => `${c.method} ${c.route}`)).toEqual(
      expect.arrayContaining([
        'GET /api/admin/catalogue/products',
        'GET /api/admin/catalogue/products/[slug]',
        'POST /api/admin/catalogue/products/[slug]',
        'POST /api/admin/catalogue/undo',
        'POST /api/admin/catalogue/pictures',
        'GET /api/admin/catalogue/pictures/[name]',
        'GET /api/admin/catalogue/publish',
        'POST /api/admin/catalogue/publish',
      ]),
    );
  });

  it('a guest and a shopper get the stranger’s 404 from every admin endpoint, the editor’s included', async () => {
    for (const who of [browser(), people.shopper]) {
      for (const { method, path } of calls) {
        const res = await call(request(method, path), { jar: who });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(await res.json(), `${method} ${path}`).toEqual(STRANGER);
      }
    }
  });

  it('an editor reaches the catalogue editor’s endpoints and gets the stranger’s 404 from every other one', async () => {
    for (const { route, method, path } of calls) {
      if (route === '/api/admin/catalogue/publish' && method === 'POST') continue;
      const res = await call(request(method, path), { jar: people.editor });
      if (isEditorRoute(route)) {
        expect(res.status, `${method} ${path}`).toBe(method === 'GET' ? 200 : 400);
      } else {
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(await res.json(), `${method} ${path}`).toEqual(STRANGER);
      }
    }
  });

  it('an admin reaches the catalogue editor’s endpoints too, and the editor-role endpoint', async () => {
    for (const { route, method, path } of calls.filter((c) => isEditorRoute(c.route) || c.route === '/api/admin/editors')) {
      if (route === '/api/admin/catalogue/publish' && method === 'POST') continue;
      const res = await call(request(method, path), { jar: people.admin });
      expect(res.status, `${method} ${path}`).toBe(method === 'GET' ? 200 : 400);
    }
  });

  it('a request another site made is refused at every editor endpoint, with an editor’s or an admin’s cookie', async () => {
    for (const jar of [people.editor, people.admin]) {
      for (const { method, path } of calls.filter((c) => isEditorRoute(c.route) || c.route === '/api/admin/editors')) {
        const crossSite =
          method === 'GET'
            ? request(method, path, { 'sec-fetch-site': 'cross-site' })
            : request(method, path, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
        const res = await call(crossSite, { jar });
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(await res.json()).toMatchObject({ error: { code: 'forbidden_origin' } });
      }
    }
  });

  it('the publish request is an editor’s: queued for the build, and its state is answered', async () => {
    const queued = await call(request('POST', '/api/admin/catalogue/publish'), { jar: people.editor });
    expect(queued.status).toBe(202);
    expect(await queued.json()).toMatchObject({ publish: { status: 'queued', requestedBy: 'editor@example.com' } });
    const state = await call(request('GET', '/api/admin/catalogue/publish'), { jar: people.editor });
    expect(await state.json()).toMatchObject({ latest: { status: 'queued' } });
  });

  it('a picture preview can only ever be a picture: a CSP that runs nothing, sandboxed, never sniffed', async () => {
    const res = await call(request('GET', '/api/admin/catalogue/pictures/clinical-scrubs.svg'), { jar: people.editor });
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'; sandbox");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const missing = await call(request('GET', '/api/admin/catalogue/pictures/..%2F..%2Fpackage.json'), { jar: people.editor });
    expect(missing.status).toBe(404);
  });
});
