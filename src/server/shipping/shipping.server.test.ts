import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.server';
import { createShipping } from './shipping.server';

describe('shipping adapter selection', () => {
  it('runs the embedded rate table without SHIPPO_API_KEY and Shippo with it, and says which', async () => {
    expect((await createShipping(loadConfig({}).shipping)).name).toBe('rate table (test labels)');
    expect((await createShipping(loadConfig({ SHIPPO_API_KEY: 'shippo_test_abc123' }).shipping)).name).toBe(
      'Shippo (test token)',
    );
    expect((await createShipping(loadConfig({ SHIPPO_API_KEY: 'shippo_live_abc123' }).shipping)).name).toBe('Shippo');
  });
});
