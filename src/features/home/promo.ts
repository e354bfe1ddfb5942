/** The home banner's claims (spec section 1). */
export const PROMO_CLAIMS = ['50+ brands', '100+ clients', 'Free worldwide shipping', '24/7 support', '30-day returns'] as const;

/** The three trust blurbs under the grid. */
export const TRUST_BLURBS = [
  {
    title: 'Clean, tested formulas',
    text: 'Every batch is made in small runs with plant oils and clinically studied actives, and patch-tested before it ships.',
  },
  {
    title: 'Secure checkout',
    text: 'Card payments are handled by our payment provider over an encrypted connection; we never see or store your card number.',
  },
  {
    title: '30-day returns',
    text: 'Not the right fit? Send it back within 30 days and we will refund or exchange it, no questions asked.',
  },
] as const;
