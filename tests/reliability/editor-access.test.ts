/**
 * Every admin endpoint walked as a guest, a shopper, an editor, an admin and from another site, through
 * src/middleware.ts as the built server runs them. The catalogue editor's endpoints (/api/admin/catalogue/…) answer
 * editors and admins only; every other admin endpoint tells an editor they have catalogue access only (403), and a
 * guest or a shopper what it answers for a path that does not exist (the 404); another site's request gets the
 * middleware's 403 whoever's cookie it carries.
 */
import sharp from 'sharp';
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
const CATALOGUE_ONLY = {
  error: {
    code: 'catalogue_only',
    message:
      'You have catalogue access only: this part of the admin is for the shop’s owner. The catalogue editor is at /admin/catalogue.',
  },
};

describe('the catalogue editor’s endpoints, and the rest of the admin’s', () => {
  it('finds the editor’s endpoints', () => {
    expect(calls.filter((c) => isEditorRoute(c.route)).map((c) => `${c.method} ${c.route}`)).toEqual(
      expect.arrayContaining([
        'GET /api/admin/catalogue/products',
        'POST /api/admin/catalogue/products',
        'GET /api/admin/catalogue/products/[slug]',
        'POST /api/admin/catalogue/products/[slug]',
        'POST /api/admin/catalogue/undo',
        'POST /api/admin/catalogue/pictures',
        'GET /api/admin/catalogue/pictures/[name]',
        'GET /api/admin/catalogue/publish',
        'POST /api/admin/catalogue/publish',
        'POST /api/admin/catalogue/publish/again',
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

  it('an editor reaches the catalogue editor’s endpoints and is told they have catalogue access only at every other one', async () => {
    for (const { route, method, path } of calls) {
      if (route === '/api/admin/catalogue/publish' && method === 'POST') continue;
      const res = await call(request(method, path), { jar: people.editor });
      if (isEditorRoute(route)) {
        expect(res.status, `${method} ${path}`).toBe(method === 'GET' ? 200 : 400);
      } else {
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(await res.json(), `${method} ${path}`).toEqual(CATALOGUE_ONLY);
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

describe('picture uploads through the endpoint', () => {
  const upload = (name: string, bytes: Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}) =>
    call(
      new Request(`http://127.0.0.1:4321/api/admin/catalogue/pictures?name=${encodeURIComponent(name)}`, {
        method: 'POST',
        headers: { origin: 'http://127.0.0.1:4321', 'content-type': 'application/octet-stream', ...headers },
        body: bytes,
      }),
      { jar: people.editor },
    );

  it('refuses an SVG carrying script, a file over 1 MB and a file that is no picture; stores a PNG by its bytes', async () => {
    const evil = new TextEncoder().encode(
      '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)</script></svg>',
    );
    const refused = await upload('innocent.png', evil);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: { code: 'invalid_picture', message: expect.stringContaining('<script>') },
    });
    const big = await upload('big.png', new Uint8Array(1_000_001).fill(0x89));
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: { message: expect.stringContaining('larger than 1 MB') } });
    expect((await upload('page.html', new TextEncoder().encode('<html><script>x</script></html>'))).status).toBe(400);
    // Known by its first bytes, but no picture: HTML after a PNG's header is refused in words (the build could not read it).
    const notPng = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new TextEncoder().encode('<html>')]);
    const unreadable = await upload('jar.png', notPng);
    expect(unreadable.status).toBe(400);
    expect(await unreadable.json()).toMatchObject({
      error: { code: 'invalid_picture', message: expect.stringMatching(/^This PNG picture cannot be read: /) },
    });
    const png = new Uint8Array(
      await sharp({ create: { width: 4, height: 3, channels: 3, background: '#c9a063' } })
        .png()
        .toBuffer(),
    );
    const stored = await upload('Jar.svg', png);
    expect(stored.status).toBe(201);
    const { name } = (await stored.json()) as { name: string };
    expect(name).toMatch(/^jar-[0-9a-f]{12}\.png$/);
    const preview = await call(apiRequest('GET', `/api/admin/catalogue/pictures/${name}`), { jar: people.editor });
    expect(preview.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await preview.arrayBuffer())).toEqual(png);
    // A guest's upload is the stranger's 404, and nothing is stored.
    const guest = await call(
      new Request('http://127.0.0.1:4321/api/admin/catalogue/pictures?name=x.png', {
        method: 'POST',
        headers: { origin: 'http://127.0.0.1:4321', 'content-type': 'application/octet-stream' },
        body: Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 9]),
      }),
    );
    expect(guest.status).toBe(404);
    const [count] = await asService(shop.db, (tx) =>
      tx.query<{ n: number }>('select count(*)::int as n from public.catalogue_pictures'),
    );
    expect(count?.n).toBe(1);
  });
});
