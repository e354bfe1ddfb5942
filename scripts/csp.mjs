// The origins Stripe's Payment Element needs (Stripe's CSP guide): its script, its frames (the card fields and
// 3-D Secure), its API and its card-brand pictures. Used twice, so that the page is allowed to talk to Stripe only
// when the server runs with Stripe configured:
// - astro.config.mjs writes them into every page's <meta> policy at build time (a static page cannot know);
// - scripts/serve.mjs takes them out of the header policy when Stripe is not configured. A browser enforces both
//   policies, so without Stripe the header forbids what the <meta> would allow.

export const STRIPE_SOURCES = /** @type {const} */ ({
  'script-src': ['https://js.stripe.com', 'https://*.js.stripe.com'],
  'frame-src': ['https://js.stripe.com', 'https://*.js.stripe.com', 'https://hooks.stripe.com'],
  'connect-src': ['https://api.stripe.com'],
  'img-src': ['https://*.stripe.com'],
});

/**
 * The policy without Stripe's sources. A directive left with no source would fall back to default-src (wider for
 * frame-src than intended), so it keeps 'self' instead.
 * @param {string} policy
 */
export function withoutStripe(policy) {
  return policy
    .split(';')
    .map((directive) => {
      const [name, ...sources] = directive.trim().split(/\s+/);
      if (!name) return '';
      /** @type {readonly string[]} */
      const stripe = STRIPE_SOURCES[/** @type {keyof typeof STRIPE_SOURCES} */ (name)] ?? [];
      const kept = sources.filter((source) => !stripe.includes(source));
      return [name, ...(kept.length > 0 ? kept : ["'self'"])].join(' ');
    })
    .filter(Boolean)
    .join('; ');
}
