import type { APIRequestContext } from '@playwright/test';
import { expect, test } from './fixtures';

// The spec's newsletter calls through the built server, middleware included: a client that is not a browser sends a
// bearer token and no Origin; a browser's cookie call keeps the Origin check. The endpoints' own cases (every refusal,
// idle and revoked tokens, the Supabase adapter) are in tests/db/newsletter-api.test.ts.

/** The session token the shop set in this context's cookie: what a client that is not our pages sends as its bearer. */
async function sessionToken(request: APIRequestContext): Promise<string> {
  const { cookies } = await request.storageState();
  const token = cookies.find((c) => c.name === 'aurelia_session')?.value;
  if (!token) throw new Error('no session cookie');
  return token;
}

async function userId(request: APIRequestContext): Promise<string> {
  return (await (await request.get('/api/auth/session')).json()).user.id;
}

test.describe('the spec’s newsletter calls', () => {
  test('a client with a bearer token and no Origin asks and subscribes; without a credential it hears 401', async ({
    page,
    playwright,
    baseURL,
    signIn,
  }) => {
    const origin = baseURL ?? '';
    const ann = await signIn();
    const id = await userId(page.request);
    // A separate client: no cookies, and (like any non-browser client) no Origin header.
    const app = await playwright.request.newContext({ baseURL: origin });
    const authorization = `Bearer ${await sessionToken(page.request)}`;
    try {
      const before = await app.get(`/api/newsletter-status?userId=${id}`, { headers: { authorization } });
      expect(await before.json()).toEqual({ isSubscribed: false });

      const subscribed = await app.post('/api/newsletter-subscribe', {
        headers: { authorization },
        data: { email: ann.email, userId: id },
      });
      expect(subscribed.status()).toBe(201);
      expect(await subscribed.json()).toEqual({ error: null, subscribed: true });
      const again = await app.post('/api/newsletter-subscribe', {
        headers: { authorization },
        data: { email: ann.email, userId: id },
      });
      expect(again.status()).toBe(409);
      expect(await again.json()).toEqual({ error: 'This email is already subscribed', code: 'already_subscribed' });
      expect(await (await app.get(`/api/newsletter-status?userId=${id}`, { headers: { authorization } })).json()).toEqual({
        isSubscribed: true,
      });
      // The footer form's route sees the same subscription.
      expect(await (await page.request.get('/api/newsletter')).json()).toEqual({ subscribed: true });

      // No token: 401 from the endpoint (not the Origin check's 403), for both calls.
      const anonymous = [
        await app.get(`/api/newsletter-status?userId=${id}`),
        await app.post('/api/newsletter-subscribe', { data: { email: ann.email, userId: id } }),
      ];
      for (const res of anonymous) {
        expect(res.status()).toBe(401);
        expect(res.headers()['www-authenticate']).toBe('Bearer realm="aurelia"');
      }
      const garbage = await app.post('/api/newsletter-subscribe', {
        headers: { authorization: 'Bearer not-a-session' },
        data: { email: ann.email, userId: id },
      });
      expect(garbage.status()).toBe(401);
      expect((await garbage.json()).code).toBe('invalid_token');

      // Signing out revokes the token for the client too.
      await page.request.post('/api/auth/logout', { headers: { origin } });
      expect((await app.get(`/api/newsletter-status?userId=${id}`, { headers: { authorization } })).status()).toBe(401);
    } finally {
      await app.dispose();
    }
  });

  test('a cookie call keeps the Origin check; another shopper’s id is 403; the bearer wins over a cookie', async ({
    page,
    playwright,
    baseURL,
    signIn,
  }) => {
    const origin = baseURL ?? '';
    const ann = await signIn(page.request, 'Ann');
    const annId = await userId(page.request);
    const benContext = await playwright.request.newContext({ baseURL: origin });
    try {
      const ben = await signIn(benContext, 'Ben');
      const benId = await userId(benContext);
      const bensToken = `Bearer ${await sessionToken(benContext)}`;
      const data = { email: ann.email, userId: annId };

      // Ann's cookie, without or with a foreign Origin: refused before the endpoint, nothing stored.
      for (const headers of [{}, { origin: 'https://evil.example' }, { origin: 'null' }]) {
        const res = await page.request.post('/api/newsletter-subscribe', { headers, data });
        expect(res.status(), JSON.stringify(headers)).toBe(403);
        // In the spec's shape, as the endpoint's own refusals: {error: message, code}.
        expect(await res.json()).toEqual({
          error: 'This request must come from the shop’s own pages.',
          code: 'forbidden_origin',
        });
      }
      expect(await (await page.request.get(`/api/newsletter-status?userId=${annId}`)).json()).toEqual({ isSubscribed: false });

      // From the shop's own pages the cookie works; Ann cannot ask about or subscribe Ben.
      expect((await page.request.get(`/api/newsletter-status?userId=${benId}`)).status()).toBe(403);
      const forBen = await page.request.post('/api/newsletter-subscribe', {
        headers: { origin },
        data: { email: ben.email, userId: benId },
      });
      expect(forBen.status()).toBe(403);
      expect(await forBen.json()).toEqual({ error: 'You can only subscribe yourself.', code: 'forbidden' });
      const own = await page.request.post('/api/newsletter-subscribe', { headers: { origin }, data });
      expect(own.status()).toBe(201);

      // Ben's token sent from Ann's browser context (her cookie rides along): the request is Ben's.
      expect(
        (await page.request.get(`/api/newsletter-status?userId=${benId}`, { headers: { authorization: bensToken } })).status(),
      ).toBe(200);
      expect(
        (await page.request.get(`/api/newsletter-status?userId=${annId}`, { headers: { authorization: bensToken } })).status(),
      ).toBe(403);
      expect(await (await benContext.get('/api/newsletter')).json()).toEqual({ subscribed: false });
    } finally {
      await benContext.dispose();
    }
  });
});
