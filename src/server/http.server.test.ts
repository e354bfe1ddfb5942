import type { AstroCookies } from 'astro';
import { z } from 'astro/zod';
import { describe, expect, it, vi } from 'vitest';
import {
  BODY_TIMEOUT_MS,
  bearerToken,
  clientAddressFrom,
  cookieJar,
  MAX_BEARER_LENGTH,
  MAX_BODY_BYTES,
  needsOriginCheck,
  readJson,
} from './http.server';

const schema = z.object({ name: z.string(), tags: z.array(z.string()).optional() });

function post(body: BodyInit | null, headers: Record<string, string> = {}): Request {
  return new Request('http://shop.test/api/x', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    duplex: 'half',
  } as RequestInit);
}

async function errorOf(result: Awaited<ReturnType<typeof readJson>>) {
  if (!('response' in result)) throw new Error('expected a refusal');
  const { error } = (await result.response.json()) as { error: { code: string; message: string } };
  return { status: result.response.status, ...error };
}

/** A body that sends `chunks` and then, unless `end`, never finishes; records how much the reader pulled. */
function stream(chunks: Uint8Array[], { end }: { end: boolean }) {
  const pulled = { bytes: 0, cancelled: false };
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller): Promise<void> | undefined {
      const chunk = chunks[i++];
      if (chunk) {
        pulled.bytes += chunk.byteLength;
        controller.enqueue(chunk);
      } else if (end) controller.close();
      // else: leave the pull pending forever, as a client that stopped sending.
      else return new Promise<void>(() => {});
      return undefined;
    },
    cancel() {
      pulled.cancelled = true;
      // As a Node request's stream: the cancel settles only when the client's next chunk arrives.
      return new Promise<void>(() => {});
    },
  });
  return { body, pulled };
}

describe('readJson', () => {
  it('reads a valid body', async () => {
    expect(await readJson(post('{"name":"Ada"}'), schema)).toEqual({ data: { name: 'Ada' } });
  });

  it('refuses a body declared too large before reading a byte of it', async () => {
    const { body, pulled } = stream([new Uint8Array(10)], { end: false });
    const result = await readJson(post(body, { 'content-length': String(100 * 1024 * 1024) }), schema);
    expect(await errorOf(result)).toMatchObject({ status: 413, code: 'too_large' });
    expect(pulled.bytes).toBeLessThanOrEqual(10);
  });

  it('stops reading a streamed body at the limit instead of buffering all of it', async () => {
    const chunk = new Uint8Array(4096).fill(0x20);
    const { body, pulled } = stream(
      Array.from({ length: 25_600 }, () => chunk),
      { end: true },
    ); // 100 MiB
    const result = await readJson(post(body), schema);
    expect(await errorOf(result)).toMatchObject({ status: 413, code: 'too_large' });
    expect(pulled.bytes).toBeLessThan(MAX_BODY_BYTES + 3 * 4096);
    expect(pulled.cancelled).toBe(true);
  });

  it('times out a body that never arrives', async () => {
    vi.useFakeTimers();
    try {
      const { body, pulled } = stream([new TextEncoder().encode('{"name":')], { end: false });
      const pending = readJson(post(body), schema);
      await vi.advanceTimersByTimeAsync(BODY_TIMEOUT_MS + 1);
      expect(await errorOf(await pending)).toMatchObject({ status: 408, code: 'body_timeout' });
      expect(pulled.cancelled).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses NUL characters in any text field with a message naming the field', async () => {
    for (const [text, field] of [
      ['{"name":"A\\u0000da"}', 'name'],
      ['{"name":"Ada","tags":["ok","b\\u0000"]}', 'tags'],
      ['{"name":"Ada","\\u0000":"x"}', 'The request'],
    ] as const) {
      const error = await errorOf(await readJson(post(text), schema));
      expect(error).toMatchObject({ status: 400, code: 'invalid_text' });
      expect(error.message).toContain(field);
    }
  });

  it('answers 400 in the error shape for JSON nested however deep, under the body limit', async () => {
    for (const text of [
      `${'['.repeat(8000)}${']'.repeat(8000)}`,
      `${'{"a":'.repeat(2500)}1${'}'.repeat(2500)}`,
      `{"name":"Ada","tags":${'['.repeat(5000)}${']'.repeat(5000)}}`,
    ]) {
      expect(text.length).toBeLessThan(MAX_BODY_BYTES);
      const error = await errorOf(await readJson(post(text), schema));
      expect(error).toMatchObject({ status: 400, code: 'invalid_json', message: 'The request body is nested too deeply.' });
    }
    // As deep as a real body goes is still read.
    expect(await readJson(post('{"name":"Ada","tags":["a"]}'), schema)).toEqual({ data: { name: 'Ada', tags: ['a'] } });
  });

  it('answers 415 for another media type and 400 for broken JSON', async () => {
    expect(await errorOf(await readJson(post('name=Ada', { 'content-type': 'text/plain' }), schema))).toMatchObject({
      status: 415,
    });
    expect(await errorOf(await readJson(post('{"name":'), schema))).toMatchObject({ status: 400, code: 'invalid_json' });
  });
});

describe('clientAddressFrom', () => {
  const request = (xff?: string) => new Request('http://shop.test/', { headers: xff ? { 'x-forwarded-for': xff } : {} });

  it('uses the connection address and ignores forwarding headers when no proxy is trusted', () => {
    expect(clientAddressFrom(request('6.6.6.6'), '10.0.0.5', 0)).toBe('10.0.0.5');
  });

  it('takes the address the nearest trusted proxy saw, so a spoofed entry on the left is ignored', () => {
    // The shopper sent "X-Forwarded-For: 6.6.6.6"; our one proxy appended the address it saw.
    expect(clientAddressFrom(request('6.6.6.6, 203.0.113.9'), '10.0.0.5', 1)).toBe('203.0.113.9');
    expect(clientAddressFrom(request('6.6.6.6, 203.0.113.9, 10.0.0.7'), '10.0.0.5', 2)).toBe('203.0.113.9');
  });

  it('falls back to the leftmost entry when fewer hops than trusted came in, and to the socket without a header', () => {
    expect(clientAddressFrom(request('203.0.113.9'), '10.0.0.5', 2)).toBe('203.0.113.9');
    expect(clientAddressFrom(request(), '10.0.0.5', 1)).toBe('10.0.0.5');
    expect(clientAddressFrom(request(' , '), '10.0.0.5', 1)).toBe('10.0.0.5');
  });
});

/** Astro's cookies as far as the jar uses them: what the answer will set. */
function answer() {
  const set: { name: string; value: string }[] = [];
  const cookies = { set: (name: string, value: string) => void set.push({ name, value }) } as unknown as AstroCookies;
  return { cookies, set };
}

describe('cookieJar', () => {
  it('reads back what the request set, as a browser would (login then asks for the new session)', () => {
    const request = new Request('http://shop.test/api/auth/login', { headers: { cookie: 'aurelia_session=old; theme=dark' } });
    const { cookies, set } = answer();
    const jar = cookieJar(request, cookies);
    jar.set('aurelia_session', 'new', { httpOnly: true, path: '/' });
    expect(jar.getAll()).toEqual([
      { name: 'theme', value: 'dark' },
      { name: 'aurelia_session', value: 'new' },
    ]);
    expect(set).toEqual([{ name: 'aurelia_session', value: 'new' }]);
  });

  it('forgets a cookie the request cleared', () => {
    const request = new Request('http://shop.test/', { headers: { cookie: 'aurelia_session=old' } });
    const jar = cookieJar(request, answer().cookies);
    jar.set('aurelia_session', '', { maxAge: 0 });
    expect(jar.getAll()).toEqual([]);
  });
});

describe('needsOriginCheck (CSRF)', () => {
  const request = (method: string, headers: Record<string, string> = {}) =>
    new Request('http://shop.test/api/x', { method, headers });
  const bearer = { authorization: 'Bearer abc' };

  it('checks every state-changing /api request, cookie-authenticated calls to the bearer endpoints included', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(needsOriginCheck(request(method), '/api/cart'), method).toBe(true);
    }
    expect(needsOriginCheck(request('POST', { cookie: 'aurelia_session=x' }), '/api/newsletter-subscribe')).toBe(true);
    expect(needsOriginCheck(request('POST', { cookie: 'theme=dark' }), '/api/newsletter-subscribe')).toBe(true);
  });

  it('lets through safe methods, the signed webhook, and a bearer endpoint’s call with a token or without cookies', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) expect(needsOriginCheck(request(method), '/api/cart'), method).toBe(false);
    expect(needsOriginCheck(request('POST'), '/api/stripe-webhook')).toBe(false);
    expect(needsOriginCheck(request('POST', bearer), '/api/newsletter-subscribe')).toBe(false);
    // The bearer wins: the endpoint reads no cookie, so one beside it changes nothing.
    expect(needsOriginCheck(request('POST', { ...bearer, cookie: 'aurelia_session=x' }), '/api/newsletter-subscribe')).toBe(
      false,
    );
    // Even an empty or malformed header: the endpoint then answers 401 and reads no cookie.
    expect(needsOriginCheck(request('POST', { authorization: '' }), '/api/newsletter-subscribe')).toBe(false);
    // No credential at all: nothing to forge, and a client that forgot its token hears 401 from the endpoint.
    expect(needsOriginCheck(request('POST'), '/api/newsletter-subscribe')).toBe(false);
  });

  it('excuses no other endpoint, nor another spelling of a bearer one, with or without a token or cookies', () => {
    for (const path of [
      '/api/newsletter',
      '/api/cart',
      '/api/auth/logout',
      '/api/newsletter-subscribe/',
      '/api/Newsletter-Subscribe',
    ]) {
      expect(needsOriginCheck(request('POST', bearer), path), path).toBe(true);
      expect(needsOriginCheck(request('POST'), path), path).toBe(true);
    }
  });
});

describe('bearerToken', () => {
  const withAuth = (authorization?: string) =>
    new Request('http://shop.test/api/x', { headers: authorization === undefined ? {} : { authorization } });

  it('is null without an Authorization header', () => {
    expect(bearerToken(withAuth())).toBeNull();
  });

  it('reads RFC 6750 tokens: the built-in session token, a JWT, padding, any case of the scheme', () => {
    const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    for (const [header, token] of [
      ['Bearer Xy_-9aZ', 'Xy_-9aZ'],
      [`Bearer ${jwt}`, jwt],
      ['bearer abc+/==', 'abc+/=='],
      ['BEARER  a.b~c', 'a.b~c'],
    ]) {
      expect(bearerToken(withAuth(header)), header).toEqual({ token });
    }
    expect(bearerToken(withAuth(`Bearer ${'a'.repeat(MAX_BEARER_LENGTH)}`))).toEqual({ token: 'a'.repeat(MAX_BEARER_LENGTH) });
  });

  it('calls everything else malformed', () => {
    for (const header of [
      '',
      'Bearer',
      'Bearer ',
      'Basic dXNlcjpwYXNz',
      'Bearertoken',
      'Bearer a b',
      'Bearer "abc"',
      'Bearer a=b',
      'Bearer abc, Bearer def',
      'Bearer tök',
      `Bearer ${'a'.repeat(MAX_BEARER_LENGTH + 1)}`,
    ]) {
      expect(bearerToken(withAuth(header)), header).toBe('malformed');
    }
  });
});
