import type { Config } from '../config.server';
import { createRateTableShipping } from './rate-table.server';
import type { ShippingPort } from './shipping.port';

/**
 * The shipping adapter the configuration asks for: Shippo with SHIPPO_API_KEY (at SHIPPO_API_BASE in tests; its SDK
 * loaded only then), else the embedded rate table.
 */
export async function createShipping(config: Config['shipping']): Promise<ShippingPort> {
  if (config.kind !== 'shippo') return createRateTableShipping();
  const { createShippoShipping } = await import('./shippo.server');
  return createShippoShipping({ apiKey: config.apiKey, ...('apiBase' in config ? { serverURL: config.apiBase } : {}) });
}
