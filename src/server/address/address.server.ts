import type { Config } from '../config.server';
import type { AddressPort } from './address.port';
import { createGeoapifyAddress } from './geoapify.server';

/** The address-suggestions adapter the configuration asks for: Geoapify with GEOAPIFY_API_KEY, else none (typed by hand). */
export function createAddressSuggestions(config: Config['address']): AddressPort | null {
  if (config.kind === 'none') return null;
  // GEOAPIFY_API_BASE (tests and mocks only) points the adapter at a local server speaking Geoapify's wire format.
  return createGeoapifyAddress({ apiKey: config.apiKey, ...(config.apiBase ? { apiBase: config.apiBase } : {}) });
}
