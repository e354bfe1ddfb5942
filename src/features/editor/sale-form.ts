// A product's sale as the editor's form holds it (a price and two times on the shop's clock, as typed) and as a save
// sends it (the file's `sale`: dollars, and each time with the shop's offset; null for no sale). Pure, for the island
// and its tests; the build's schema judges the rest (lower than the price, the end after the start).
import { type Refusal, typedNumber } from './catalogue-form';
import { instantToWall, shopIso, wallToInstant } from './shop-time';

/** The sale's inputs: all three empty is no sale. */
export interface SaleInputs {
  price: string;
  startsAt: string;
  endsAt: string;
}

export const NO_SALE: SaleInputs = { price: '', startsAt: '', endsAt: '' };

/** Each sale input: its id in the form (after the form's own), and the field its refusals name (`sale.price`, …). */
export const SALE_INPUTS = {
  price: { input: 'salePrice', field: 'sale.price' },
  startsAt: { input: 'saleStartsAt', field: 'sale.startsAt' },
  endsAt: { input: 'saleEndsAt', field: 'sale.endsAt' },
} as const satisfies Record<keyof SaleInputs, { input: string; field: string }>;

/** What the form and the shop say of a sale they cannot take, in the shop's words. */
export const SALE_WORDS = {
  price: 'Enter the sale price in dollars, for example 29.99, or leave the three sale fields empty for no sale.',
  startsAt: 'Choose the date and time the sale starts.',
  endsAt: 'Choose the date and time the sale ends.',
  order: 'The sale must end after it starts.',
} as const;

/** A time as the file holds it: text with its offset, or a date (a YAML timestamp); null otherwise. */
function instant(value: unknown): Date | null {
  const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : null;
  return date && !Number.isNaN(date.getTime()) ? date : null;
}

/** The inputs for a product's saved `sale` (absent: empty), its times on the shop's clock. */
export function saleInputs(sale: unknown, timeZone: string): SaleInputs {
  if (!sale || typeof sale !== 'object') return NO_SALE;
  const { price, startsAt, endsAt } = sale as Record<string, unknown>;
  const wall = (value: unknown) => {
    const at = instant(value);
    return at ? instantToWall(at, timeZone) : '';
  };
  return {
    price: typeof price === 'number' ? price.toFixed(2) : typeof price === 'string' ? price : '',
    startsAt: wall(startsAt),
    endsAt: wall(endsAt),
  };
}

/** What a save sends as `sale`: the sale, null for none, or what cannot be read, each beside its input. */
export function saleFromInputs(
  inputs: SaleInputs,
  timeZone: string,
): { sale: { price: number; startsAt: string; endsAt: string } | null } | { problems: Refusal[] } {
  if (inputs.price.trim() === '' && inputs.startsAt.trim() === '' && inputs.endsAt.trim() === '') return { sale: null };
  const problems: Refusal[] = [];
  const price = typedNumber(inputs.price);
  if (price === null) problems.push({ field: 'sale.price', message: SALE_WORDS.price });
  const startsAt = wallToInstant(inputs.startsAt, timeZone);
  if (!startsAt) problems.push({ field: 'sale.startsAt', message: SALE_WORDS.startsAt });
  const endsAt = wallToInstant(inputs.endsAt, timeZone);
  if (!endsAt) problems.push({ field: 'sale.endsAt', message: SALE_WORDS.endsAt });
  else if (startsAt && endsAt <= startsAt) problems.push({ field: 'sale.endsAt', message: SALE_WORDS.order });
  if (price === null || !startsAt || !endsAt || problems.length > 0) return { problems };
  return { sale: { price, startsAt: shopIso(startsAt, timeZone), endsAt: shopIso(endsAt, timeZone) } };
}
