import { describe, expect, it } from 'vitest';
import { actionLabel, adminDay, adminTime, describeValue, sentenceOf } from './admin';

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

describe('the catalogue editors’ actions in the activity log', () => {
  it('are shown as the sentence they were recorded with, after who did them', () => {
    const after = 'changed the price of Turmeric Body Oil $35.00 → $29.99';
    expect(sentenceOf({ action: 'catalogue.save', after })).toBe(after);
    expect(sentenceOf({ action: 'catalogue.published', after: 'published: 1 product changed (Turmeric Body Oil)' })).toMatch(
      /^published: /,
    );
    expect(actionLabel('catalogue.publish-failed')).toBe('Publish failed');
    // Other actions keep their label and their before → after.
    expect(sentenceOf({ action: 'order.status', after: 'shipped' })).toBeNull();
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
