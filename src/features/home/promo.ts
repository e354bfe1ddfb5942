/** The home banner's claims (product spec). */
export const PROMO_CLAIMS = ['50+ brands', '100+ clients', 'Free worldwide shipping', '24/7 support', '30-day returns'] as const;

/** The three trust blurbs under the grid: each one true on every configuration (the TEST MODE card form included). */
export const TRUST_BLURBS = [
  {
    title: 'Clean, tested formulas',
    text: 'Every batch is made in small runs with plant oils and clinically studied actives, and patch-tested before it ships.',
  },
  // How the shop really ships and charges (the banner keeps the spec's wording; nothing else may promise more).
  {
    title: 'Shipped across the US',
    text: 'We ship from Georgia to all 50 US states. Shipping is free on orders of $500 or more; below that, checkout shows the rate for your address before you pay.',
  },
  {
    title: '30-day returns',
    text: 'Not the right fit? Send it back within 30 days and we will refund or exchange it, no questions asked.',
  },
] as const;
