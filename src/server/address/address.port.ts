// The address-suggestions port in the app's own terms: text in, US addresses out, in the fields the checkout's
// address form fills. The embedded default is no port at all (the form works by hand); Geoapify is the production
// adapter, chosen by GEOAPIFY_API_KEY.

/** An adapter answers at most this many suggestions (the form shows 5). */
export const MAX_SUGGESTIONS = 5;

/** One US address the shopper may pick instead of typing it: exactly the fields it fills in the form. */
export interface AddressSuggestion {
  /** House number and street, e.g. '455 Market St'. */
  street: string;
  /** '' when the source names none. */
  city: string;
  /** One of the 50 states, by USPS code. */
  state: string;
  /** 5 digits or ZIP+4; '' when the source names none. */
  zip: string;
}

export interface SuggestOptions {
  /** Aborts the vendor call, e.g. when the shopper's request is gone (they typed on, and the browser aborted it). */
  signal?: AbortSignal;
}

/** Suggests US addresses for what a shopper has typed into the street field. */
export interface AddressPort {
  /** Which adapter answers, for the start-up log line. */
  readonly name: string;
  /**
   * Up to MAX_SUGGESTIONS US addresses in one of the 50 states. Rejects with an Error whose message says what went
   * wrong with the vendor (never its key); rejects with the signal's reason when `signal` aborts.
   */
  suggest(text: string, options?: SuggestOptions): Promise<{ suggestions: AddressSuggestion[] }>;
}
