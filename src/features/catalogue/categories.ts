// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// Catalogue constants the islands need. Kept apart from the zod schema so no island bundles zod.

/** The main categories, in the order the home page's chips show them (product spec). */
export const MAIN_CATEGORIES = ['skincare', 'haircare', 'scrub set', 'medical supplies', 'accessories'] as const;
export type MainCategory = (typeof MAIN_CATEGORIES)[number];

/** Scrub sizes, smallest first. */
export const SIZES = ['XS', 'S', 'M', 'L', 'XL', 'XXL'] as const;
export type Size = (typeof SIZES)[number];
