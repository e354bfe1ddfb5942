// Address suggestions as the address form meets them (product spec: from 3 characters, 5 of them, US only), shared
// by the street field's combobox and the server's GET /api/address-suggestions. No zod and no server code: the
// checkout island imports this. A suggestion's shape is the address port's.

import { type AddressSuggestion, MAX_SUGGESTIONS } from '@/server/address/address.port';

export { type AddressSuggestion, MAX_SUGGESTIONS };

/** Suggestions are asked for once the street field holds this many characters (trimmed). */
export const SUGGEST_MIN_CHARS = 3;
/** Longer text is refused: no street address needs more, and the vendor is not a free text service. */
export const SUGGEST_MAX_CHARS = 200;
/** The pause in typing after which the field asks: one request per word or so, not per keystroke. */
export const SUGGEST_DEBOUNCE_MS = 250;

/**
 * What GET /api/address-suggestions answers: `enabled: false` when the shop has no suggestion service (no
 * GEOAPIFY_API_KEY), so the form stops asking and the shopper types the address by hand.
 */
export type SuggestionsAnswer = { enabled: false; suggestions: [] } | { enabled: true; suggestions: AddressSuggestion[] };

/** A suggestion on one line, as the list shows it: '455 Market St, San Francisco, CA 94105'. */
export function suggestionLabel({ street, city, state, zip }: AddressSuggestion): string {
  return [street, city, `${state} ${zip}`.trim()].filter(Boolean).join(', ');
}

/** Whether the street field's text is worth asking about. */
export function wantsSuggestions(text: string): boolean {
  const length = text.trim().length;
  return length >= SUGGEST_MIN_CHARS && length <= SUGGEST_MAX_CHARS;
}

/**
 * Asks our own endpoint (never the vendor: its key stays on the server). Null when the answer is unusable (a network
 * failure, an error status, a rate limit): the form then simply shows no list. An abort rejects, as fetch does.
 */
export async function fetchSuggestions(text: string, signal: AbortSignal): Promise<SuggestionsAnswer | null> {
  let res: Response;
  try {
    res = await fetch(`/api/address-suggestions?text=${encodeURIComponent(text.trim())}`, {
      credentials: 'same-origin',
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw error;
    return null;
  }
  if (!res.ok) return null;
  const data = (await res.json().catch(() => null)) as SuggestionsAnswer | null;
  if (!data || typeof data.enabled !== 'boolean' || !Array.isArray(data.suggestions)) return null;
  return data.enabled ? { enabled: true, suggestions: data.suggestions.slice(0, MAX_SUGGESTIONS) } : data;
}
