import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, failureText, TOO_MANY_REQUESTS } from './api';

/** Answers every fetch with `status` and `body` (JSON when an object), as one of our endpoints would. */
function answer(status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  vi.stubGlobal('fetch', async () => new Response(text, { status, headers: { 'content-type': 'application/json', ...headers } }));
}

const rateLimited = { error: { code: 'rate_limited', message: 'Too many messages. Please wait a moment and try again.' } };

describe('api(): calls to our endpoints from an island', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('a 429 carries the server’s request to wait', async () => {
    answer(429, rateLimited, { 'retry-after': '60' });
    expect(await api('/api/contact', { name: 'Ada' })).toEqual({
      ok: false,
      status: 429,
      message: 'Too many messages. Please wait a moment and try again.',
      code: 'rate_limited',
    });
  });

  it('a 429 without words of its own (from a proxy) still says to wait', async () => {
    answer(429, '<html>Too Many Requests</html>');
    expect(await api('/api/contact', {})).toEqual({ ok: false, status: 429, message: TOO_MANY_REQUESTS });
    answer(429, { error: { message: '' } });
    expect(await api('/api/contact', {})).toEqual({ ok: false, status: 429, message: TOO_MANY_REQUESTS });
  });

  it('other failures keep the server’s message and code, or name the status', async () => {
    answer(400, { error: { code: 'invalid_request', message: 'Please enter a valid email address' } });
    expect(await api('/api/contact', {})).toEqual({
      ok: false,
      status: 400,
      message: 'Please enter a valid email address',
      code: 'invalid_request',
    });
    answer(409, { error: { code: 'out_of_stock', message: 'Only 1 of Kojic Acid Soap left.' } });
    expect(await api('/api/create-payment-intent', {})).toMatchObject({ status: 409, code: 'out_of_stock' });
    answer(500, '');
    expect(await api('/api/contact', {})).toEqual({ ok: false, status: 500, message: 'Request failed (500)' });
  });

  it('a network failure is status 0', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('fetch failed');
    });
    expect(await api('/api/contact', {})).toMatchObject({ ok: false, status: 0 });
  });
});

describe('failureText(): what a form says when a call failed', () => {
  const fallback = 'Something went wrong. Please try again.';

  it('a rate limit and a refused input in the server’s words; anything else the form’s general failure', () => {
    expect(failureText({ ok: false, status: 429, message: 'Please wait a moment.' }, fallback)).toBe('Please wait a moment.');
    expect(failureText({ ok: false, status: 400, message: 'Please fill in all fields.' }, fallback)).toBe(
      'Please fill in all fields.',
    );
    expect(failureText({ ok: false, status: 500, message: 'Request failed (500)' }, fallback)).toBe(fallback);
    expect(failureText({ ok: false, status: 0, message: 'Network error.' }, fallback)).toBe(fallback);
  });
});
