import { isUsStateCode } from '@/lib/us-states';
import type { AddressPort, SuggestOptions } from './address.port';
import { type AddressSuggestion, MAX_SUGGESTIONS } from './address.port';

// The production address-suggestions adapter: Geoapify's Address Autocomplete API, by plain fetch (one GET; an SDK
// would add weight and nothing else). Geoapify's shapes stay in this file.

export interface GeoapifyAddressOptions {
  apiKey: string;
  /** Another server speaking Geoapify's API (GEOAPIFY_API_BASE: tests and mocks only). Unset in production. */
  apiBase?: string;
  /** Milliseconds for the whole call, answer included. A suggestion that comes later is no use to a typing shopper. */
  timeoutMs?: number;
}

const API_BASE = 'https://api.geoapify.com';
const TIMEOUT_MS = 4_000;
/** Five results take a few kilobytes; anything near this is not an autocomplete answer, and is not read further. */
const MAX_ANSWER_BYTES = 256 * 1024;
/** The longest fields the address form and the shipping schema take (src/server/shipping/shipping.port.ts). */
const MAX_STREET = 200;
const MAX_CITY = 100;
const ZIP = /^\d{5}(-\d{4})?$/;

/** What we read of one of Geoapify's results (format=json): its flat address fields. */
interface GeoapifyResult {
  country_code?: unknown;
  state_code?: unknown;
  city?: unknown;
  postcode?: unknown;
  street?: unknown;
  housenumber?: unknown;
}

const text = (value: unknown) => (typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '');

/**
 * One result in the form's fields, or null when the form could not take it: outside the US, outside the 50 states,
 * without a street (a city, a postcode, a region), or with a field longer than the form allows. The street line is
 * built from house number and street, not `address_line1`, which for an amenity is its name.
 */
function toSuggestion(result: unknown): AddressSuggestion | null {
  if (!result || typeof result !== 'object') return null;
  const r = result as GeoapifyResult;
  if (text(r.country_code).toLowerCase() !== 'us') return null;
  const state = text(r.state_code).toUpperCase();
  if (!isUsStateCode(state)) return null;
  const street = [text(r.housenumber), text(r.street)].filter(Boolean).join(' ');
  if (!text(r.street) || street.length > MAX_STREET) return null;
  const city = text(r.city);
  if (city.length > MAX_CITY) return null;
  // OSM sometimes lists several postcodes ('31401;31402'): better none than a wrong one.
  const postcode = text(r.postcode);
  return { street, city, state, zip: ZIP.test(postcode) ? postcode : '' };
}

/** Reads a body as text, refusing it past `maxBytes` without holding more than that. */
async function readCapped(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new GeoapifyError(`Geoapify sent an answer larger than ${maxBytes / 1024} KiB`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Geoapify's error bodies are {statusCode, error, message}. */
function problemText(body: string, apiKey: string): string {
  let message = '';
  try {
    const parsed = JSON.parse(body) as { message?: unknown; error?: unknown };
    message = text(parsed.message) || text(parsed.error);
  } catch {
    // Not JSON (a proxy's HTML page): the status says enough.
  }
  // An error text could echo the request; the key must not travel on into logs or answers.
  return message.split(apiKey).join('…').slice(0, 200);
}

/** A failure whose message is ours and safe to show (no key, no URL). */
class GeoapifyError extends Error {}

/** The address-suggestions port on Geoapify's Address Autocomplete API. */
export function createGeoapifyAddress({
  apiKey,
  apiBase = API_BASE,
  timeoutMs = TIMEOUT_MS,
}: GeoapifyAddressOptions): AddressPort {
  return {
    name: apiBase === API_BASE ? 'Geoapify' : `Geoapify (API at ${apiBase}, GEOAPIFY_API_BASE: tests and mocks only)`,
    async suggest(query: string, { signal }: SuggestOptions = {}) {
      const url = new URL('/v1/geocode/autocomplete', apiBase);
      // URLSearchParams encodes every value: the shopper's text cannot add or change a parameter.
      url.search = new URLSearchParams({
        text: query,
        filter: 'countrycode:us',
        limit: String(MAX_SUGGESTIONS),
        format: 'json',
        lang: 'en',
        apiKey,
      }).toString();
      const timeout = AbortSignal.timeout(timeoutMs);
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      let results: unknown;
      try {
        // No redirects: the key is in the address, and must go to Geoapify only.
        const res = await fetch(url, { signal: combined, redirect: 'error', headers: { accept: 'application/json' } });
        const body = await readCapped(res, MAX_ANSWER_BYTES);
        if (!res.ok) {
          const detail = problemText(body, apiKey);
          throw new GeoapifyError(`Geoapify refused the request (HTTP ${res.status})${detail ? `: ${detail}` : ''}`);
        }
        try {
          results = (JSON.parse(body) as { results?: unknown }).results;
        } catch {
          results = undefined;
        }
        if (!Array.isArray(results)) throw new GeoapifyError('Geoapify sent an answer we could not read');
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (error instanceof GeoapifyError) throw error;
        // fetch's own errors carry the URL, key and all, in their cause: they are described, not passed on.
        if (timeout.aborted) throw new GeoapifyError('Geoapify did not answer in time');
        throw new GeoapifyError('Geoapify could not be reached');
      }
      const seen = new Set<string>();
      const suggestions: AddressSuggestion[] = [];
      for (const result of results) {
        const suggestion = toSuggestion(result);
        if (!suggestion) continue;
        const key = JSON.stringify(suggestion);
        if (seen.has(key)) continue;
        seen.add(key);
        suggestions.push(suggestion);
        if (suggestions.length === MAX_SUGGESTIONS) break;
      }
      return { suggestions };
    },
  };
}
