import { describe, expect, it } from 'vitest';
import { addressSchema, shopParcel, WAREHOUSE } from './shipping.port';

const address = {
  name: ' Maya Okafor ',
  street1: '455 Market St',
  city: 'San Francisco',
  state: 'ca',
  zip: '94105',
  country: 'US',
};

describe('shipping addresses', () => {
  it('accepts a US address, trimmed, with the state in capitals', () => {
    expect(addressSchema.parse(address)).toEqual({ ...address, name: 'Maya Okafor', state: 'CA' });
    expect(addressSchema.parse({ ...address, zip: '94105-1420', email: 'maya@example.com' }).zip).toBe('94105-1420');
    expect(addressSchema.parse(WAREHOUSE)).toEqual(WAREHOUSE);
  });

  it('takes an apartment or suite line when there is one: blank is none', () => {
    expect(addressSchema.parse({ ...address, street2: ' Apt 4B ' }).street2).toBe('Apt 4B');
    expect(addressSchema.parse({ ...address, street2: '  ' })).not.toHaveProperty('street2', expect.anything());
    expect(addressSchema.safeParse({ ...address, street2: 'x'.repeat(101) }).error?.issues[0]?.message).toBe(
      'Apartment or suite is too long',
    );
  });

  it('says what is wrong with each field', () => {
    const messages = (input: Record<string, unknown>) =>
      addressSchema.safeParse(input).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(messages({ ...address, state: 'PR' })).toEqual(['state: State must be one of the 50 US states']);
    expect(messages({ ...address, zip: '9410' })).toEqual(['zip: ZIP code must be 5 digits (or ZIP+4)']);
    expect(messages({ ...address, country: 'CA' })).toEqual(['country: We ship within the US only']);
    expect(messages({ ...address, name: '   ' })).toEqual(['name: Name is required']);
    expect(messages({ ...address, email: 'maya@' })).toEqual(['email: Enter a valid e-mail address']);
  });
});

describe('the parcel', () => {
  it('is the shop box, 10 × 8 × 4 in, at the given weight', () => {
    expect(shopParcel(2.5)).toEqual({ length: 10, width: 8, height: 4, weightLb: 2.5 });
  });
});
