import { describe, expect, it } from 'vitest';
import {
  addressChangeProblem,
  addressErrorCode,
  fieldOfCode,
  RESEND_KEY,
  resendMailKey,
  resendProblem,
  sameShipTo,
  shipToLine,
  stateChangeProblem,
} from './order-ops';

const savannah = { name: 'Grace Hopper', street1: '12 Bull St', street2: '', city: 'Savannah', state: 'GA', zip: '31401' };

describe('changing where an order ships', () => {
  it('is open while the order is processing and has no label, and says why not otherwise', () => {
    expect(addressChangeProblem({ number: 'ORD-1', status: 'processing', hasLabel: false })).toBeNull();
    expect(addressChangeProblem({ number: 'ORD-1', status: 'processing', hasLabel: true })).toBe(
      'ORD-1 has its shipping label, bought for this address: the address can no longer change.',
    );
    for (const status of ['shipped', 'delivered', 'cancelled'] as const)
      expect(addressChangeProblem({ number: 'ORD-1', status, hasLabel: false })).toMatch(
        /^ORD-1 is \w+: its address can no longer change\.$/,
      );
  });

  it('keeps the state shipping was paid for, naming both states', () => {
    expect(stateChangeProblem('GA', 'GA')).toBeNull();
    expect(stateChangeProblem('GA', 'NY')).toBe(
      'The new address must be in Georgia, as the order’s is: its shipping was priced and paid for Georgia. To send it to New York, cancel and refund this order and place a new one.',
    );
  });

  it('compares addresses as a carrier reads them, and writes one on a line for the activity log', () => {
    expect(sameShipTo(savannah, { ...savannah, street1: ' 12  bull st ' })).toBe(true);
    expect(sameShipTo(savannah, { ...savannah, street2: 'Apt 2' })).toBe(false);
    expect(shipToLine(savannah)).toBe('Grace Hopper, 12 Bull St, Savannah, GA 31401');
    expect(shipToLine({ ...savannah, street2: 'Apt 2' })).toBe('Grace Hopper, 12 Bull St, Apt 2, Savannah, GA 31401');
  });

  it('names the refused field in the error code, both ways', () => {
    expect(addressErrorCode('zip')).toBe('invalid_zip');
    expect(fieldOfCode('invalid_zip')).toBe('zip');
    expect(fieldOfCode('invalid_request')).toBeNull();
    expect(fieldOfCode(undefined)).toBeNull();
  });
});

describe('resending the confirmation', () => {
  it('is refused for a cancelled order only', () => {
    expect(resendProblem({ number: 'ORD-1', status: 'processing' })).toBeNull();
    expect(resendProblem({ number: 'ORD-1', status: 'delivered' })).toBeNull();
    expect(resendProblem({ number: 'ORD-1', status: 'cancelled' })).toMatch(/cancelled/);
  });

  it('is keyed by the order and the page’s key, which is a UUID or another 16 to 64 safe characters', () => {
    expect(RESEND_KEY.test(crypto.randomUUID())).toBe(true);
    expect(RESEND_KEY.test('short')).toBe(false);
    expect(RESEND_KEY.test('a'.repeat(65))).toBe(false);
    expect(RESEND_KEY.test('../../../../etc/passwd!!')).toBe(false);
    expect(resendMailKey('o', 'k')).toBe('mail:resend:o:k');
  });
});
