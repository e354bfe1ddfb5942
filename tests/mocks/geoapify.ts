// A local stand-in for Geoapify's Address Autocomplete API (GET /v1/geocode/autocomplete) that speaks its wire format
// for the call the address adapter makes: text, filter=countrycode:…, limit, format=json, apiKey in the query; a JSON
// answer {results: [...], query: {...}} whose results carry Geoapify's flat address fields (housenumber, street,
// city, state, state_code, postcode, country, country_code, formatted, address_line1, address_line2, result_type, …);
// a wrong key is 401 {statusCode, error, message}, as Geoapify answers it. Shared by tests/contract/geoapify.test.ts
// and tests/e2e/address-suggestions.spec.ts.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  /** The query as the server decoded it. */
  query: URLSearchParams;
  /** The query exactly as it arrived (still percent-encoded). */
  rawQuery: string;
  headers: IncomingHttpHeaders;
}

/** A place the fake knows, in Geoapify's terms. */
export interface FakePlace {
  housenumber?: string;
  street?: string;
  /** An amenity's name: Geoapify then puts it in address_line1, not the street. */
  name?: string;
  city?: string;
  state: string;
  state_code?: string;
  postcode?: string;
  country: string;
  country_code: string;
  result_type: 'building' | 'street' | 'amenity' | 'city' | 'postcode' | 'state';
}

export interface FakeGeoapify {
  /** Give it to the adapter as its API base (GEOAPIFY_API_BASE). */
  origin: string;
  /** The key the fake accepts. */
  apiKey: string;
  requests: RecordedRequest[];
  /** The next request is answered with this status and JSON body instead (Geoapify's error shape by default). */
  failNext(status: number, body?: unknown): void;
  /** The next request is answered with this raw body and status 200 (for answers the adapter cannot read). */
  answerNextRaw(body: string): void;
  /** The next request is accepted and never answered (until stop). */
  hangNext(): void;
  /** The next request ignores `filter` and `limit`, as a misbehaving vendor might: every match comes back. */
  ignoreFiltersNext(): void;
  stop(): Promise<void>;
}

/** The places every fake knows. The first five US matches for '100 Main' are in five of the 50 states. */
export const PLACES: readonly FakePlace[] = [
  us('100', 'Main Street', 'Springfield', 'Illinois', 'IL', '62701'),
  us('100', 'Main Street', 'Burlington', 'Vermont', 'VT', '05401'),
  us('100', 'Main Street', 'Columbia', 'South Carolina', 'SC', '29201'),
  us('100', 'Main Street', 'Houston', 'Texas', 'TX', '77002'),
  us('100', 'Main Street', 'Salt Lake City', 'Utah', 'UT', '84101'),
  us('100', 'Main Street', 'Portland', 'Maine', 'ME', '04101'),
  // Not one of the 50 states: the form cannot take it.
  us('100', 'Main Street', 'Washington', 'District of Columbia', 'DC', '20001'),
  us('100', 'Main Street', 'Nashua', 'New Hampshire', 'NH', '03060'),
  {
    housenumber: '100',
    street: 'Main Street East',
    city: 'Hamilton',
    state: 'Ontario',
    state_code: 'ON',
    postcode: 'L8N 3W4',
    country: 'Canada',
    country_code: 'ca',
    result_type: 'building',
  },
  {
    housenumber: '100',
    street: 'Main Street',
    city: 'Ashford',
    state: 'England',
    state_code: 'ENG',
    postcode: 'TN23 1JX',
    country: 'United Kingdom',
    country_code: 'gb',
    result_type: 'building',
  },
  {
    street: 'Main Street',
    city: 'Springfield',
    state: 'Illinois',
    state_code: 'IL',
    country: 'United States',
    country_code: 'us',
    result_type: 'street',
  },
  {
    city: 'Mainesburg',
    state: 'Pennsylvania',
    state_code: 'PA',
    postcode: '16932',
    country: 'United States',
    country_code: 'us',
    result_type: 'city',
  },
  us('455', 'Market Street', 'San Francisco', 'California', 'CA', '94105'),
  us('12', 'Bull Street', 'Savannah', 'Georgia', 'GA', '31401'),
  {
    name: 'Market Street Bakery',
    housenumber: '701',
    street: 'Market Street',
    city: 'Wilmington',
    state: 'Delaware',
    state_code: 'DE',
    postcode: '19801',
    country: 'United States',
    country_code: 'us',
    result_type: 'amenity',
  },
];

function us(housenumber: string, street: string, city: string, state: string, stateCode: string, postcode: string): FakePlace {
  return {
    housenumber,
    street,
    city,
    state,
    state_code: stateCode,
    postcode,
    country: 'United States',
    country_code: 'us',
    result_type: 'building',
  };
}

/** A place as Geoapify's format=json answer lists it (a flat object per result). */
export function geoapifyResult(place: FakePlace, index = 0) {
  const streetLine = [place.housenumber, place.street].filter(Boolean).join(' ');
  const line1 = place.name ?? (streetLine || place.city || place.state);
  const region = place.country_code === 'us' ? `${place.state_code ?? ''} ${place.postcode ?? ''}`.trim() : place.postcode;
  const rest = [place.name ? streetLine : '', place.city, region, place.country].filter(
    (part): part is string => !!part && part !== line1,
  );
  const lat = 30 + index / 10;
  const lon = -90 - index / 10;
  return {
    datasource: {
      sourcename: 'openstreetmap',
      attribution: '© OpenStreetMap contributors',
      license: 'Open Database License',
      url: 'https://www.openstreetmap.org/copyright',
    },
    ...(place.name ? { name: place.name } : {}),
    country: place.country,
    country_code: place.country_code,
    state: place.state,
    ...(place.city ? { city: place.city } : {}),
    ...(place.postcode ? { postcode: place.postcode } : {}),
    ...(place.street ? { street: place.street } : {}),
    ...(place.housenumber ? { housenumber: place.housenumber } : {}),
    lon,
    lat,
    ...(place.state_code ? { state_code: place.state_code } : {}),
    result_type: place.result_type,
    formatted: [line1, ...rest].join(', '),
    address_line1: line1,
    address_line2: rest.join(', '),
    timezone: { name: 'America/Chicago', offset_STD: '-06:00', offset_STD_seconds: -21600 },
    plus_code: '86HJW8XV+XX',
    rank: { importance: 0.5, popularity: 5, confidence: 1, match_type: 'full_match' },
    place_id: randomBytes(24).toString('hex'),
    bbox: { lon1: lon - 0.001, lat1: lat - 0.001, lon2: lon + 0.001, lat2: lat + 0.001 },
  };
}

/** Every word of the text starts a word of the place's address (case and punctuation ignored), as a prefix search does. */
function matches(place: FakePlace, text: string): boolean {
  const words = (s: string) =>
    s
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean);
  const haystack = words(geoapifyResult(place).formatted);
  return words(text).every((w) => haystack.some((h) => h.startsWith(w)));
}

type Next =
  | { kind: 'fail'; status: number; body: unknown }
  | { kind: 'raw'; body: string }
  | { kind: 'hang' }
  | { kind: 'unfiltered' };

/** Starts the fake on a free port of 127.0.0.1. */
export async function startFakeGeoapify({ apiKey = `fake${randomBytes(14).toString('hex')}` } = {}): Promise<FakeGeoapify> {
  const requests: RecordedRequest[] = [];
  const queue: Next[] = [];
  const hanging = new Set<ServerResponse>();

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };
  const error = (res: ServerResponse, status: number, name: string, message: string) =>
    send(res, status, { statusCode: status, error: name, message });

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake.geoapify');
    requests.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      rawQuery: url.search.slice(1),
      headers: req.headers,
    });
    const next = queue.shift();
    if (next?.kind === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (next?.kind === 'fail') return send(res, next.status, next.body);
    if (next?.kind === 'raw') {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      return res.end(next.body);
    }
    if (req.method !== 'GET' || url.pathname !== '/v1/geocode/autocomplete') return error(res, 404, 'Not Found', 'Not Found');
    const q = url.searchParams;
    if (q.get('apiKey') !== apiKey) return error(res, 401, 'Unauthorized', 'Invalid apiKey');
    const text = q.get('text') ?? '';
    if (text.trim() === '') return error(res, 400, 'Bad Request', '"text" is required');
    if ((q.get('format') ?? 'geojson') !== 'json') {
      return error(res, 400, 'Bad Request', 'this fake answers format=json only');
    }
    const limit = Number(q.get('limit') ?? '5');
    if (!Number.isInteger(limit) || limit < 1 || limit > 20) {
      return error(res, 400, 'Bad Request', '"limit" must be less than or equal to 20');
    }
    const countries = /^countrycode:([a-z,]+)$/.exec(q.get('filter') ?? '')?.[1]?.split(',');
    const unfiltered = next?.kind === 'unfiltered';
    let found = PLACES.filter((p) => matches(p, text));
    if (!unfiltered && countries) found = found.filter((p) => countries.includes(p.country_code));
    if (!unfiltered) found = found.slice(0, limit);
    send(res, 200, {
      results: found.map((p, i) => geoapifyResult(p, i)),
      query: { text, parsed: { street: text, expected_type: 'unknown' } },
    });
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    failNext: (status, body = { statusCode: status, error: 'Error', message: `HTTP ${status}` }) =>
      queue.push({ kind: 'fail', status, body }),
    answerNextRaw: (body) => queue.push({ kind: 'raw', body }),
    hangNext: () => queue.push({ kind: 'hang' }),
    ignoreFiltersNext: () => queue.push({ kind: 'unfiltered' }),
    stop: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
