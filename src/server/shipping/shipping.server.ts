import type { Config } from '../config.server';
import { createRateTableShipping } from './rate-table.server';
import type { ShippingPort } from './shipping.port';
import { createShippoShipping } from './shippo.server';

/** The shipping adapter the configuration asks for: Shippo with SHIPPO_API_KEY, else the embedded rate table. */
export function createShipping(config: Config['shipping']): ShippingPort {
  return config.kind === 'shippo' ? createShippoShipping({ apiKey: config.apiKey }) : createRateTableShipping();
}
