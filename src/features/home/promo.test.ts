import { describe, expect, it } from 'vitest';
import { FREE_SHIPPING_FROM_CENTS } from '@/lib/pricing';
import { US_STATES } from '@/lib/us-states';
import { PROMO_CLAIMS, TRUST_BLURBS } from './promo';

describe('what the home page promises', () => {
  it('keeps the banner claims the spec gives, word for word (product spec)', () => {
    expect(PROMO_CLAIMS).toEqual(['50+ brands', '100+ clients', 'Free worldwide shipping', '24/7 support', '30-day returns']);
  });

  it('has the trust blurbs say how the shop really ships: to the 50 US states, free from the checkout’s threshold', () => {
    const text = TRUST_BLURBS.map((b) => `${b.title}. ${b.text}`).join('\n');
    const shipping = TRUST_BLURBS.find((b) => /ship/i.test(b.title));
    expect(shipping?.title).toBe('Shipped across the US');
    expect(shipping?.text).toContain(`all ${US_STATES.length} US states`);
    expect(shipping?.text).toContain(`free on orders of $${FREE_SHIPPING_FROM_CENTS / 100} or more`);
    expect(text).not.toMatch(/worldwide|international|anywhere in the world/i);
  });

  it('promises nothing about cards that the embedded TEST MODE card form (which posts to the shop) would break', () => {
    const text = TRUST_BLURBS.map((b) => `${b.title}. ${b.text}`).join('\n');
    expect(text).not.toMatch(/never see|card number|encrypted/i);
  });
});
