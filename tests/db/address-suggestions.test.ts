import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AddressSuggestionDeps, addressSuggestions } from '@/features/checkout/address-suggestions.server';
import type { AddressPort } from '@/server/address/address.port';
import { createGeoapifyAddress } from '@/server/address/geoapify.server';
import { captureLogs } from '@/server/log.server';
import { LIMITS } from '@/server/ratelimit.server';
import { type FakeGeoapify, startFakeGeoapify } from '../mocks/geoapify';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

// GET /api/address-suggestions as its route runs it: a Request in, a Response out, on a real database (its rate limit
// counts there), with a recording port or the Geoapify adapter against tests/mocks/geoapify.ts.

const db = suiteDatabase();
const SHOP = 'http://shop.test';

/** A port that records what it was asked and answers `answer` (or throws it). */
function recordingPort(answer: unknown = { suggestions: [] }) {
  const asked: string[] = [];
  const port: AddressPort = {
    name: 'recording',
    async suggest(text) {
      asked.push(text);
      if (answer instanceof Error) throw answer;
      return answer as Awaited<ReturnType<AddressPort['suggest']>>;
    },
  };
  return { port, asked };
}

let clients = 0;
/** Each test gets its own client address, so rate limits do not carry over between tests. */
const newClient = () => `203.0.113.${++clients}`;

async function ask(deps: Partial<AddressSuggestionDeps>, query: string, client = newClient()) {
  const res = await addressSuggestions(
    { db, address: recordingPort().port, limits: LIMITS, ...deps },
    new Request(`${SHOP}/api/address-suggestions${query}`),
    client,
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

let fake: FakeGeoapify;
beforeAll(async () => {
  fake = await startFakeGeoapify();
});
afterAll(() => fake?.stop());

describe(`GET /api/address-suggestions on ${TEST_DATABASE_KIND}`, () => {
  it('without a suggestion service says it is off, whatever is asked, and asks nobody', async () => {
    for (const query of ['?text=100%20Main', '', '?text=ab']) {
      expect(await ask({ address: null }, query)).toMatchObject({ status: 200, body: { enabled: false, suggestions: [] } });
    }
  });

  it('answers up to 5 US suggestions, in the form’s four fields only', async () => {
    const { port, asked } = recordingPort({
      suggestions: Array.from({ length: 7 }, (_, i) => ({
        street: `${i} Main Street`,
        city: 'Springfield',
        state: 'IL',
        zip: '62701',
        // Anything else an adapter might carry is not passed on.
        lat: 39.8,
        placeId: 'abc',
      })),
    });
    const answer = await ask({ address: port }, '?text=%20%20100%20Main%20');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.body.enabled).toBe(true);
    expect(answer.body.suggestions).toHaveLength(5);
    expect((answer.body.suggestions as unknown[])[0]).toEqual({
      street: '0 Main Street',
      city: 'Springfield',
      state: 'IL',
      zip: '62701',
    });
    // Trimmed before it goes out.
    expect(asked).toEqual(['100 Main']);
  });

  it('refuses text it will not send: missing, twice, under 3 or over 200 characters, with a NUL', async () => {
    const { port, asked } = recordingPort();
    const cases: [string, RegExp][] = [
      ['', /Ask with \?text=/],
      ['?text=100&text=Main', /Ask with \?text=/],
      ['?text=ab', /at least 3 characters/],
      ['?text=%20%20ab%20%20', /at least 3 characters/],
      [`?text=${'a'.repeat(201)}`, /at most 200 characters/],
      ['?text=100%00Main', /NUL/],
    ];
    for (const [query, message] of cases) {
      const answer = await ask({ address: port }, query);
      expect(answer.status, query).toBe(400);
      expect(answer.body, query).toEqual({ error: { code: 'invalid_request', message: expect.stringMatching(message) } });
    }
    expect((await ask({ address: port }, `?text=${'a'.repeat(200)}`)).status).toBe(200);
    expect(asked).toEqual(['a'.repeat(200)]);
  });

  it('limits how often one client address may ask, and counts no refused request', async () => {
    const { port } = recordingPort();
    const client = newClient();
    const limits = { ...LIMITS, addressSuggestionsPerAddress: { limit: 3, windowSeconds: 600 } };
    expect((await ask({ address: port, limits }, '?text=a', client)).status).toBe(400);
    for (let i = 0; i < 3; i++) expect((await ask({ address: port, limits }, '?text=100 Main', client)).status).toBe(200);
    const limited = await ask({ address: port, limits }, '?text=100 Main', client);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address still gets its answers.
    expect((await ask({ address: port, limits }, '?text=100 Main', newClient())).status).toBe(200);
  });

  it('answers 502 with a clear message when the vendor fails, and logs the vendor’s reason', async () => {
    const logs = captureLogs('warn');
    try {
      const { port } = recordingPort(new Error('Geoapify refused the request (HTTP 401): Invalid apiKey'));
      const answer = await ask({ address: port }, '?text=100 Main');
      expect(answer).toMatchObject({
        status: 502,
        body: {
          error: {
            code: 'suggestions_failed',
            message: 'Address suggestions are unavailable right now. Please type your address.',
          },
        },
      });
      expect(logs.records).toContainEqual(
        expect.objectContaining({
          msg: 'address suggestions failed',
          err: expect.objectContaining({ message: 'Geoapify refused the request (HTTP 401): Invalid apiKey' }),
        }),
      );
    } finally {
      logs.restore();
    }
  });

  it('through the Geoapify adapter: 5 US addresses for a street, none abroad; the vendor’s failure is a 502', async () => {
    const address = createGeoapifyAddress({ apiKey: fake.apiKey, apiBase: fake.origin });
    fake.ignoreFiltersNext();
    const answer = await ask({ address }, `?text=${encodeURIComponent('100 Main')}`);
    expect(answer.status).toBe(200);
    expect(answer.body.suggestions).toHaveLength(5);
    expect(answer.body.suggestions).toContainEqual({ street: '100 Main Street', city: 'Springfield', state: 'IL', zip: '62701' });

    const logs = captureLogs('warn');
    try {
      fake.failNext(500);
      const failed = await ask({ address }, '?text=100 Main');
      expect(failed.status).toBe(502);
      expect(JSON.stringify(failed.body)).not.toContain(fake.apiKey);
      // The vendor's key is in the URL the adapter asked: never in the log line about the failure either.
      expect(logs.records).toHaveLength(1);
      expect(logs.text()).not.toContain(fake.apiKey);
    } finally {
      logs.restore();
    }
  });
});
