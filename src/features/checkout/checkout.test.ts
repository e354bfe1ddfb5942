import { describe, expect, it } from 'vitest';
import {
  addressComplete,
  addressErrors,
  CHECKOUT_MESSAGES,
  EMPTY_ADDRESS,
  FALLBACK_RATE_ID,
  fallbackRate,
  toastOrderId,
} from './checkout';

const filled = {
  name: 'Maya Thompson',
  email: 'maya@example.com',
  address: '1 Main St',
  address2: '',
  city: 'Savannah',
  state: 'GA',
  zipCode: '31401',
};

describe('the address stage', () => {
  it('enables Continue only when all six fields are filled; the apartment or suite is optional', () => {
    expect(addressComplete(filled)).toBe(true);
    expect(addressComplete({ ...filled, address2: 'Apt 4B' })).toBe(true);
    expect(addressComplete(EMPTY_ADDRESS)).toBe(false);
    for (const field of ['name', 'email', 'address', 'city', 'state', 'zipCode'] as const) {
      expect(addressComplete({ ...filled, address2: 'Apt 4B', [field]: '  ' }), field).toBe(false);
    }
  });

  it('says next to the field when an e-mail or ZIP code is malformed, and nothing for blank fields', () => {
    expect(addressErrors(filled)).toEqual({});
    expect(addressErrors(EMPTY_ADDRESS)).toEqual({});
    expect(addressErrors({ ...filled, email: 'maya@' })).toEqual({ email: CHECKOUT_MESSAGES.invalidEmail });
    expect(addressErrors({ ...filled, email: 'josé@example.com' })).toEqual({ email: CHECKOUT_MESSAGES.invalidEmail });
    for (const zip of ['3140', '314011', 'ABCDE', '31401-12']) {
      expect(addressErrors({ ...filled, zipCode: zip }), zip).toEqual({ zipCode: CHECKOUT_MESSAGES.invalidZip });
    }
    expect(addressErrors({ ...filled, zipCode: '31401-1234' })).toEqual({});
    expect(addressErrors({ ...filled, state: 'PR' })).toEqual({ state: CHECKOUT_MESSAGES.invalidState });
  });

  it('says next to the ZIP code when it is outside the chosen state', () => {
    expect(addressErrors({ ...filled, state: 'GA', zipCode: '90210' })).toEqual({
      zipCode: 'ZIP code 90210 is in California, not Georgia. Please check the ZIP code and state.',
    });
  });
});

describe('messages and numbers', () => {
  it('uses the spec’s wording', () => {
    expect(CHECKOUT_MESSAGES.shippingFailed('timeout')).toBe('Shipping calculation failed: timeout');
    expect(CHECKOUT_MESSAGES.paymentFailed('Your card was declined.')).toBe('Payment failed: Your card was declined.');
    expect(CHECKOUT_MESSAGES.apiError(500)).toBe('API Error: 500');
    expect(CHECKOUT_MESSAGES.noRates).toBe('No shipping rates available');
    expect(CHECKOUT_MESSAGES.retryShipping).toBe('Retry shipping calculation');
  });

  it('numbers an order in its toast by the first 8 characters of its id', () => {
    expect(toastOrderId('3f2a9c1e-7b4d-4e8a-9f00-123456789abc')).toBe('3f2a9c1e');
  });

  it('falls back to Standard Shipping priced by the spec’s rule', () => {
    expect(fallbackRate('GA', 2.5)).toMatchObject({ id: FALLBACK_RATE_ID, service: 'Standard Shipping', amountCents: 1600 });
    expect(fallbackRate('CA', 0.5)).toMatchObject({ amountCents: 1500 });
  });
});
