import { describe, expect, it } from 'vitest';
import { describeValue } from '../admin';
import { codeScope, codeState, codeValue, instantToWall, wallToInstant } from './discounts-admin';

const NY = 'America/New_York';

describe('a start or an end on the shop’s clock', () => {
  it('is the instant that clock reads, in winter and in summer, and reads back the same', () => {
    expect(wallToInstant('2030-12-24T09:00', NY)?.toISOString()).toBe('2030-12-24T14:00:00.000Z');
    expect(wallToInstant('2030-07-04T09:00', NY)?.toISOString()).toBe('2030-07-04T13:00:00.000Z');
    expect(wallToInstant('2030-07-04T09:00', 'Asia/Kolkata')?.toISOString()).toBe('2030-07-04T03:30:00.000Z');
    for (const wall of ['2030-12-24T09:00', '2030-07-04T23:59', '2031-01-01T00:00'])
      expect(instantToWall(wallToInstant(wall, NY)?.toISOString() ?? '', NY)).toBe(wall);
  });

  it('falls just after the change when the clocks skip it, and is the first when they show it twice', () => {
    // 9 March 2031: New York's clocks go from 2:00 to 3:00; 2 November 2031: from 2:00 back to 1:00.
    expect(wallToInstant('2031-03-09T02:30', NY)?.toISOString()).toBe('2031-03-09T07:30:00.000Z');
    expect(instantToWall('2031-03-09T07:30:00.000Z', NY)).toBe('2031-03-09T03:30');
    expect(wallToInstant('2031-11-02T01:30', NY)?.toISOString()).toBe('2031-11-02T05:30:00.000Z');
  });

  it('is no time at all when it is not one', () => {
    for (const wall of ['2030-02-30T10:00', '2030-06-01T24:00', '2030-06-01T10:60', '2030-06-01 10:00', '1969-12-31T23:00', ''])
      expect(wallToInstant(wall, NY), wall).toBeNull();
  });
});

const code = {
  status: 'active' as const,
  startsAt: null as string | null,
  endsAt: null as string | null,
  usageLimit: null as number | null,
  held: 0,
  used: 0,
};
const NOW = new Date('2030-06-01T12:00:00Z');

describe('where a code stands', () => {
  it('says its status, or what its dates and limit make of an active one', () => {
    expect(codeState(code, NOW)).toBe('Active');
    expect(codeState({ ...code, status: 'paused' }, NOW)).toBe('Paused');
    expect(codeState({ ...code, status: 'ended', endsAt: '2020-01-01T00:00:00Z' }, NOW)).toBe('Ended');
    expect(codeState({ ...code, status: 'paused', endsAt: '2030-06-01T12:00:00Z' }, NOW)).toBe('Expired');
    expect(codeState({ ...code, startsAt: '2030-06-01T12:00:01Z' }, NOW)).toBe('Scheduled');
    expect(codeState({ ...code, startsAt: '2030-06-01T12:00:00Z' }, NOW)).toBe('Active');
    // Held uses count against the limit as the checkout counts them.
    expect(codeState({ ...code, usageLimit: 3, used: 2, held: 1 }, NOW)).toBe('Used up');
    expect(codeState({ ...code, usageLimit: 3, used: 2 }, NOW)).toBe('Active');
  });

  it('says what it takes off and from what, in words', () => {
    expect(codeValue({ kind: 'percent', percent: 15, amountCents: null })).toBe('15% off');
    expect(codeValue({ kind: 'amount', percent: null, amountCents: 1250 })).toBe('$12.50 off');
    expect(codeValue({ kind: 'free_shipping', percent: null, amountCents: null })).toBe('Free shipping');
    const names = new Map([[7, 'Kojic Acid Soap']]);
    expect(codeScope({ productIds: [], categories: [] }, (id) => names.get(id))).toBe('everything');
    expect(codeScope({ productIds: [7, 42], categories: ['Body Oil'] }, (id) => names.get(id))).toBe(
      'Kojic Acid Soap, product 42, the Body Oil category',
    );
  });
});

describe('the activity log’s words for a discount change', () => {
  it('says each rule in words and dollars, and a status by name', () => {
    expect(describeValue({ kind: 'amount', amountCents: 500, minSubtotalCents: null, products: ['Kojic Acid Soap'] })).toBe(
      'amount off, $5.00 off, no minimum, products: Kojic Acid Soap',
    );
    expect(describeValue({ endsAt: '2031-01-31T23:30:00-05:00', usageLimit: 25, perCustomerLimit: null })).toBe(
      'ends 2031-01-31 23:30-05:00, 25 uses in all, no limit per customer',
    );
    expect(describeValue({ thresholdCents: 12_000, percent: 12, active: false, combines: true })).toBe(
      'from $120.00, 12% off, off, adds to a code',
    );
    expect(describeValue('paused')).toBe('Paused');
  });
});
