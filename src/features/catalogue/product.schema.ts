// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import { z } from 'astro/zod';
import { MAX_QUANTITY } from '@/lib/order-line';
import { MAX_CHARGE_CENTS, MAX_PARCEL_LB, maxUnitPriceCents } from '@/lib/pricing';
import { formatPrice } from './catalogue';
import { MAIN_CATEGORIES, SIZES } from './categories';
import { SALE_TIME } from './sale';

const text = z.string().trim().min(1);

/** Patterns the catalogue's text fields must match, with their messages: the build's schema and the editor's form share them. */
export const PRODUCT_PATTERNS = {
  // At most 40 characters: stock counts keep a colour's key in a column that takes no more (20261129120000_stock.sql).
  colorValue: {
    regex: /^[a-z0-9-]{1,40}$/,
    message: 'colour value must be a lowercase slug of at most 40 letters, digits and dashes',
  },
  hex: { regex: /^#[0-9a-fA-F]{6}$/, message: 'hex must look like #1f5fa8' },
  sku: { regex: /^[A-Z0-9-]+$/, message: 'sku must be upper-case letters, digits and dashes' },
} as const;

/** What the build and the editors say of a `finalSale` that is not true or false. */
export const FINAL_SALE_MESSAGE = 'finalSale must be true or false';

/** The lowest price, in cents: a product is never given away. */
export const MIN_PRICE_CENTS = 1;
/**
 * The highest price, in cents: a full cart line of it (MAX_QUANTITY), with tax and shipping, is still one card payment
 * (MAX_CHARGE_CENTS, Stripe's largest). $183,471.07; derived in src/lib/pricing.ts, not chosen.
 */
export const MAX_PRICE_CENTS = maxUnitPriceCents(MAX_QUANTITY);
/** The lightest shipping weight, in pounds. */
export const MIN_WEIGHT_LB = 0.01;
/** The heaviest shipping weight, in pounds: a full cart line of it fits the shop's one parcel (30 lb). */
export const MAX_WEIGHT_LB = MAX_PARCEL_LB / MAX_QUANTITY;

export const PRICE_MESSAGES = {
  tooLow: `price must be at least ${formatPrice(MIN_PRICE_CENTS)}`,
  tooHigh: `price must be at most ${formatPrice(MAX_PRICE_CENTS)}: five of it, with tax and shipping, must fit in one card payment (at most ${formatPrice(MAX_CHARGE_CENTS)})`,
  decimals: 'price must have at most two decimals',
  weightTooLow: `weight must be at least ${MIN_WEIGHT_LB} lb`,
  weightTooHigh: `weight must be at most ${MAX_WEIGHT_LB} lb: five of it must fit in one parcel (at most ${MAX_PARCEL_LB} lb)`,
} as const;

/** What the build and the editors say of a sale that cannot be. */
export const SALE_MESSAGES = {
  time: (field: 'startsAt' | 'endsAt') =>
    `sale ${field === 'startsAt' ? 'start' : 'end'} must be a date and time with its offset from UTC, such as 2026-12-24T09:00:00-05:00`,
  order: 'the sale must end after it starts',
  notLower: (priceCents: number) => `the sale price must be lower than the price (${formatPrice(priceCents)})`,
  decimals: 'sale price must have at most two decimals',
  tooLow: `sale price must be at least ${formatPrice(MIN_PRICE_CENTS)}`,
} as const;

/** Dollars with at most two decimals, from MIN_PRICE_CENTS to MAX_PRICE_CENTS. */
function dollars(messages: { tooLow: string; tooHigh?: string; decimals: string }) {
  return z
    .number()
    .min(MIN_PRICE_CENTS / 100, { error: messages.tooLow, abort: true })
    .max(MAX_PRICE_CENTS / 100, { error: messages.tooHigh ?? PRICE_MESSAGES.tooHigh, abort: true })
    .refine((n) => Number.isInteger(Math.round(n * 100)) && Math.abs(n * 100 - Math.round(n * 100)) < 1e-6, {
      error: messages.decimals,
    });
}

/** An instant as a product file writes it: text with its offset, or a YAML timestamp (read as a date). */
const saleTime = (field: 'startsAt' | 'endsAt') =>
  z
    .union([z.date(), z.string().regex(SALE_TIME, { error: SALE_MESSAGES.time(field) })], { error: SALE_MESSAGES.time(field) })
    .transform((value) => new Date(value))
    .refine((date) => !Number.isNaN(date.getTime()), { error: SALE_MESSAGES.time(field) });

const matching = ({ regex, message }: { regex: RegExp; message: string }) => z.string().regex(regex, { error: message });

/**
 * The product schema, parameterised by how an image reference is validated:
 * Astro passes its `image()` helper (so pictures go through astro:assets),
 * unit tests pass a plain string schema because `getCollection()` is empty under Vitest.
 */
export function productSchema<Img extends z.ZodType>(image: Img) {
  const picture = z.object({ src: image, alt: text });
  return z
    .object({
      id: z.number().int().positive(),
      name: text,
      category: text,
      mainCategories: z.array(z.enum(MAIN_CATEGORIES)).min(1),
      /** Dollars with at most two decimals, as an editor writes them; converted to cents below. */
      price: dollars(PRICE_MESSAGES),
      /**
       * A lower price from `startsAt` (included) to `endsAt` (excluded), each with its offset from UTC. Absent (or
       * null): no sale. What is charged at a moment is the build's to say (sale.ts, priceAt).
       */
      sale: z
        .object({ price: dollars(SALE_MESSAGES), startsAt: saleTime('startsAt'), endsAt: saleTime('endsAt') })
        .strict()
        .nullish(),
      description: text,
      detailedDescription: text,
      images: z.array(picture).min(2, { error: 'every product needs at least two images' }),
      hasColors: z.boolean(),
      colors: z
        .array(
          z.object({
            name: text,
            value: matching(PRODUCT_PATTERNS.colorValue),
            hex: matching(PRODUCT_PATTERNS.hex),
            image: picture.optional(),
          }),
        )
        .default([]),
      sizes: z.array(z.enum(SIZES)).default([]),
      usage: text,
      specifications: z.record(z.string(), z.union([z.string(), z.number()])),
      inStock: z.boolean(),
      /** Opened skincare and the like: it cannot be returned (for hygiene), and its pages say so. Absent: returnable. */
      finalSale: z.boolean({ error: FINAL_SALE_MESSAGE }).default(false),
      sku: matching(PRODUCT_PATTERNS.sku),
      /** Shipping weight in pounds. */
      weight: z
        .number()
        .min(MIN_WEIGHT_LB, { error: PRICE_MESSAGES.weightTooLow })
        .max(MAX_WEIGHT_LB, { error: PRICE_MESSAGES.weightTooHigh }),
      likes: z.number().int().nonnegative(),
      benefits: z.array(text).min(1),
      ingredients: text,
      reviews: z
        .array(
          z.object({
            id: text,
            author: text,
            rating: z.number().int().min(1).max(5),
            date: z.coerce.date(),
            comment: text,
            verified: z.boolean(),
          }),
        )
        .default([]),
    })
    .superRefine((p, ctx) => {
      if (p.hasColors !== p.colors.length > 0) {
        ctx.addIssue({ code: 'custom', path: ['colors'], message: 'hasColors must be true exactly when colors are listed' });
      }
      // A colour's value is its key in carts, stock counts and orders: two colours with one key would be one item.
      // Checked once the sale's own fields read (a refinement runs even when one of them did not).
      const { sale } = p;
      if (sale && typeof sale.price === 'number' && Math.round(sale.price * 100) >= Math.round(p.price * 100))
        ctx.addIssue({ code: 'custom', path: ['sale', 'price'], message: SALE_MESSAGES.notLower(Math.round(p.price * 100)) });
      if (sale?.startsAt instanceof Date && sale.endsAt instanceof Date && sale.endsAt <= sale.startsAt)
        ctx.addIssue({ code: 'custom', path: ['sale', 'endsAt'], message: SALE_MESSAGES.order });
      const shared = p.colors.find((c, i) => p.colors.findIndex((d) => d.value === c.value) !== i);
      if (shared) {
        ctx.addIssue({
          code: 'custom',
          path: ['colors'],
          message: `two colours share the key “${shared.value}”; each colour needs its own`,
        });
      }
    })
    .transform(({ price, sale, ...rest }) => ({
      ...rest,
      priceCents: Math.round(price * 100),
      sale: sale ? { priceCents: Math.round(sale.price * 100), startsAt: sale.startsAt, endsAt: sale.endsAt } : null,
    }));
}
