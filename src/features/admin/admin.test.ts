import { describe, expect, it } from 'vitest';
import { adminDay, adminTime, describeValue } from './admin';

describe('the activity log says what changed in words and dollars', () => {
  it('reads refunds, cancellations and retries as a person would', () => {
    expect(describeValue({ refundedCents: 0 })).toBe('$0.00 refunded');
    expect(describeValue({ refundedCents: 4267, refundId: 're_1', refundStatus: 'succeeded' })).toBe(
      '$42.67 refunded, refund re_1, refund succeeded',
    );
    expect(describeValue({ status: 'cancelled', refundedCents: 13_035 })).toBe('Cancelled, $130.35 refunded');
    expect(describeValue('shipped')).toBe('Shipped');
    expect(describeValue({ job: 'Shipping label', attempts: 1, lastError: 'carrier down' })).toBe(
      'Shipping label, 1 attempt, last error: carrier down',
    );
    expect(describeValue({ rows: 12 })).toBe('12 rows');
  });

  it('names review and message states, and shows nothing as a dash', () => {
    expect(describeValue('approved')).toBe('Approved');
    expect(describeValue('unread')).toBe('Unread');
    expect(describeValue(null)).toBe('—');
    expect(describeValue({ other: { a: 1 } })).toBe('other: {"a":1}');
  });
});

describe('times in the admin are the shop’s, and say so', () => {
  it('shows a moment in the shop’s time zone, naming it', () => {
    expect(adminTime('2026-11-25T14:30:00Z', 'America/New_York')).toBe('Nov 25, 2026, 9:30 AM EST');
    expect(adminTime('2026-07-04T03:05:00Z', 'America/New_York')).toBe('Jul 3, 2026, 11:05 PM EDT');
    expect(adminTime('2026-11-25T14:30:00Z', 'UTC')).toBe('Nov 25, 2026, 2:30 PM UTC');
    expect(adminDay('2026-11-25T03:00:00Z', 'America/Los_Angeles')).toBe('Nov 24, 2026');
  });
});
