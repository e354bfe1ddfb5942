// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// A module of its own, so the islands that show it (a return's form) do not put it in every page's shared chunk
// (astro.config.mjs, PAGE_ONLY).

/** What the product page says near Add to Cart, and the order pages and e-mail beside a line, of a final-sale product. */
export const FINAL_SALE = {
  label: 'Final sale',
  notice: 'Final sale: for hygiene, this product cannot be returned or exchanged.',
  line: 'Final sale: cannot be returned',
} as const;
