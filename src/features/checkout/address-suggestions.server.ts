import type { AddressPort } from '@/server/address/address.port';
import type { Database } from '@/server/db/database.server';
import { json, problem, tooManyRequests } from '@/server/http.server';
import { logger } from '@/server/log.server';
import { hit, type Limits } from '@/server/ratelimit.server';
import { MAX_SUGGESTIONS, SUGGEST_MAX_CHARS, SUGGEST_MIN_CHARS, type SuggestionsAnswer } from './address-suggestions';

const log = logger('address');

/** What the route needs of the services (a subset, so tests can hand in their own). */
export interface AddressSuggestionDeps {
  db: Database;
  /** Null when the shop has no suggestion service (no GEOAPIFY_API_KEY). */
  address: AddressPort | null;
  limits: Pick<Limits, 'addressSuggestionsPerAddress'>;
}

const UNAVAILABLE = 'Address suggestions are unavailable right now. Please type your address.';

/** The text to ask about, trimmed, or the 400 that says what is wrong with it. */
function queryText(request: Request): { text: string } | { response: Response } {
  const refuse = (message: string) => ({ response: problem(400, 'invalid_request', message) });
  const values = new URL(request.url).searchParams.getAll('text');
  if (values.length !== 1) return refuse('Ask with ?text=<the start of a street address>, once.');
  const text = (values[0] ?? '').trim();
  if (text.includes('\u0000')) return refuse('The text contains a NUL character, which is not allowed.');
  if (text.length < SUGGEST_MIN_CHARS) return refuse(`Type at least ${SUGGEST_MIN_CHARS} characters for suggestions.`);
  if (text.length > SUGGEST_MAX_CHARS) return refuse(`Ask with at most ${SUGGEST_MAX_CHARS} characters.`);
  return { text };
}

/**
 * GET /api/address-suggestions?text=…: {enabled: true, suggestions} with up to 5 US addresses in the address form's
 * fields (street, city, state, zip) and nothing else of the vendor's answer, so the endpoint is no open proxy to it;
 * {enabled: false, suggestions: []} when the shop has no suggestion service. Rate limited per client address; a vendor
 * failure is a 502, and the form keeps working by hand.
 */
export async function addressSuggestions(deps: AddressSuggestionDeps, request: Request, client: string): Promise<Response> {
  if (!deps.address) return json({ enabled: false, suggestions: [] } satisfies SuggestionsAnswer);
  const query = queryText(request);
  if ('response' in query) return query.response;
  const limited = await hit(deps.db, `suggest:${client}`, deps.limits.addressSuggestionsPerAddress);
  if (!limited.ok) {
    return tooManyRequests(limited.retryAfter, 'Too many address lookups. Please wait a moment, or type your address.');
  }
  try {
    const { suggestions } = await deps.address.suggest(query.text, { signal: request.signal });
    const answer: SuggestionsAnswer = {
      enabled: true,
      suggestions: suggestions.slice(0, MAX_SUGGESTIONS).map(({ street, city, state, zip }) => ({ street, city, state, zip })),
    };
    return json(answer);
  } catch (error) {
    // The shopper typed on and the browser dropped this request: nobody reads the answer, and nothing failed.
    if (request.signal.aborted) return problem(499, 'client_closed', 'The request was abandoned.');
    log.warn({ err: error }, 'address suggestions failed');
    return problem(502, 'suggestions_failed', UNAVAILABLE);
  }
}
