import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGeoapifyAddress } from '@/server/address/geoapify.server';
import { type FakeGeoapify, startFakeGeoapify } from '../mocks/geoapify';

// The address adapter (plain fetch) against tests/mocks/geoapify.ts, a local server speaking Geoapify's Address
// Autocomplete wire format: what it sends, what it keeps of the answer, and how each failure reads.

let fake: FakeGeoapify;
beforeAll(async () => {
  fake = await startFakeGeoapify();
});
afterAll(() => fake?.stop());
beforeEach(() => {
  fake.requests.length = 0;
});

const geoapify = (options: { timeoutMs?: number; apiKey?: string } = {}) =>
  createGeoapifyAddress({ apiKey: options.apiKey ?? fake.apiKey, apiBase: fake.origin, ...options });

describe('Geoapify adapter against a fake speaking Geoapify', () => {
  it('asks the autocomplete API by GET for 5 US results as JSON, the text URL-encoded, the key in the query', async () => {
    await geoapify().suggest('100 Main St #2 & Co/?x=1');

    expect(fake.requests).toHaveLength(1);
    const [sent] = fake.requests;
    expect(sent?.method).toBe('GET');
    expect(sent?.path).toBe('/v1/geocode/autocomplete');
    expect(Object.fromEntries(sent?.query ?? [])).toEqual({
      text: '100 Main St #2 & Co/?x=1',
      filter: 'countrycode:us',
      limit: '5',
      format: 'json',
      lang: 'en',
      apiKey: fake.apiKey,
    });
    // Every character that means something in a URL arrived encoded, so the text cannot add or change a parameter.
    expect(sent?.rawQuery).toContain('text=100+Main+St+%232+%26+Co%2F%3Fx%3D1&');
  });

  it('answers each result in the form’s fields: street, city, state code, ZIP', async () => {
    const { suggestions } = await geoapify().suggest('455 Market');
    expect(suggestions).toEqual([{ street: '455 Market Street', city: 'San Francisco', state: 'CA', zip: '94105' }]);
  });

  it('gives at most 5, all in the 50 states (the District of Columbia is not one the form offers)', async () => {
    const { suggestions } = await geoapify().suggest('100 Main');
    expect(suggestions).toEqual([
      { street: '100 Main Street', city: 'Springfield', state: 'IL', zip: '62701' },
      { street: '100 Main Street', city: 'Burlington', state: 'VT', zip: '05401' },
      { street: '100 Main Street', city: 'Columbia', state: 'SC', zip: '29201' },
      { street: '100 Main Street', city: 'Houston', state: 'TX', zip: '77002' },
      { street: '100 Main Street', city: 'Salt Lake City', state: 'UT', zip: '84101' },
    ]);
  });

  it('drops results outside the US, and keeps only 5, even when the vendor ignores the filter and the limit', async () => {
    fake.ignoreFiltersNext();
    const { suggestions } = await geoapify().suggest('100 Main');
    // The fake sent every match (Canada, the UK, DC, 7 states); the shopper sees 5 US addresses in the 50 states.
    expect(suggestions).toHaveLength(5);
    expect(suggestions.map((s) => s.state)).toEqual(['IL', 'VT', 'SC', 'TX', 'UT']);
  });

  it('keeps a street without a house number or ZIP, uses an amenity’s street rather than its name, and drops a city', async () => {
    expect((await geoapify().suggest('Main Street Springfield')).suggestions).toContainEqual({
      street: 'Main Street',
      city: 'Springfield',
      state: 'IL',
      zip: '',
    });
    expect((await geoapify().suggest('Market Street Bakery')).suggestions).toEqual([
      { street: '701 Market Street', city: 'Wilmington', state: 'DE', zip: '19801' },
    ]);
    expect((await geoapify().suggest('Mainesburg')).suggestions).toEqual([]);
  });

  it('drops what the form could not take: overlong fields, malformed ZIPs become empty, duplicates once', async () => {
    const base = { country_code: 'us', state_code: 'GA', city: 'Savannah', street: 'Bull Street', housenumber: '12' };
    fake.answerNextRaw(
      JSON.stringify({
        results: [
          { ...base, postcode: '31401' },
          { ...base, postcode: '31401' },
          { ...base, postcode: '31401;31402' },
          { ...base, street: 'x'.repeat(300) },
          { ...base, state_code: 'ga', city: 'C'.repeat(150) },
          { ...base, country_code: 'US', housenumber: '14', postcode: '31401-1234' },
          'not an object',
          null,
        ],
      }),
    );
    expect((await geoapify().suggest('12 Bull')).suggestions).toEqual([
      { street: '12 Bull Street', city: 'Savannah', state: 'GA', zip: '31401' },
      { street: '12 Bull Street', city: 'Savannah', state: 'GA', zip: '' },
      { street: '14 Bull Street', city: 'Savannah', state: 'GA', zip: '31401-1234' },
    ]);
  });

  it('says why when Geoapify refuses the key (401), and never repeats the key', async () => {
    const wrongKey = 'wrong0key0for0geoapify0tests';
    const refused = geoapify({ apiKey: wrongKey }).suggest('100 Main');
    await expect(refused).rejects.toThrow('Geoapify refused the request (HTTP 401): Invalid apiKey');
    const error: unknown = await refused.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(`${(error as Error).message} ${String((error as Error).cause ?? '')}`).not.toContain(wrongKey);
    // Even when the vendor's own message echoes it.
    fake.failNext(403, { statusCode: 403, error: 'Forbidden', message: `Key ${fake.apiKey} may not call this API` });
    await expect(geoapify().suggest('100 Main')).rejects.toThrow(
      /^Geoapify refused the request \(HTTP 403\): Key … may not call this API$/,
    );
  });

  it('says so when Geoapify fails (500), with its message, or without one', async () => {
    fake.failNext(500, { statusCode: 500, error: 'Internal Server Error', message: 'An internal server error occurred' });
    await expect(geoapify().suggest('100 Main')).rejects.toThrow(
      'Geoapify refused the request (HTTP 500): An internal server error occurred',
    );
    fake.failNext(503, '<html>Service Unavailable</html>');
    await expect(geoapify().suggest('100 Main')).rejects.toThrow('Geoapify refused the request (HTTP 503)');
  });

  it('refuses an answer it cannot read, or one too large to be an autocomplete answer', async () => {
    fake.answerNextRaw('{"results": [');
    await expect(geoapify().suggest('100 Main')).rejects.toThrow('Geoapify sent an answer we could not read');
    fake.answerNextRaw(JSON.stringify({ features: [] }));
    await expect(geoapify().suggest('100 Main')).rejects.toThrow('Geoapify sent an answer we could not read');
    fake.answerNextRaw(JSON.stringify({ results: [{ street: 'x'.repeat(1024 * 1024) }] }));
    await expect(geoapify().suggest('100 Main')).rejects.toThrow('Geoapify sent an answer larger than');
  });

  it('gives up after its timeout when Geoapify does not answer', async () => {
    fake.hangNext();
    const started = Date.now();
    await expect(geoapify({ timeoutMs: 300 }).suggest('100 Main')).rejects.toThrow('Geoapify did not answer in time');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('says so when Geoapify cannot be reached', async () => {
    // A port that was free a moment ago: nothing listens there.
    const server = createServer((socket: Socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const unreachable = createGeoapifyAddress({ apiKey: fake.apiKey, apiBase: `http://127.0.0.1:${port}` });
    await expect(unreachable.suggest('100 Main')).rejects.toThrow('Geoapify could not be reached');
  });

  it('stops when the caller aborts (the shopper typed on), rejecting with the caller’s reason', async () => {
    fake.hangNext();
    const controller = new AbortController();
    const pending = geoapify().suggest('100 Main', { signal: controller.signal });
    controller.abort(new Error('shopper typed on'));
    await expect(pending).rejects.toThrow('shopper typed on');
  });

  it('names itself for the start-up log, and says when it talks to a mock', () => {
    expect(createGeoapifyAddress({ apiKey: 'k'.repeat(32) }).name).toBe('Geoapify');
    expect(geoapify().name).toBe(`Geoapify (API at ${fake.origin}, GEOAPIFY_API_BASE: tests and mocks only)`);
  });
});
