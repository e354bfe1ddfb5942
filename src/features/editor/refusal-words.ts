// Why a save of the shop's editor is refused, in the shop's words and tied to the field the form shows: the build's
// schema, the form's body schema and the catalogue guard speak to developers ("images.2.alt: Too small: expected
// string to have >=1 characters"); an editor reads "Picture 3 needs a description for people who cannot see it" beside
// that picture. Pure, so every refusal can be tested as a table (refusal-words.test.ts).
import { formatPrice } from '@/features/catalogue/catalogue';
import { SIZES } from '@/features/catalogue/categories';
import {
  MAX_PRICE_CENTS,
  MAX_WEIGHT_LB,
  MIN_WEIGHT_LB,
  PRICE_MESSAGES,
  SALE_MESSAGES,
} from '@/features/catalogue/product.schema';
import { MAX_CHARGE_CENTS, MAX_PARCEL_LB } from '@/lib/pricing';
import { FIELD_LABELS, type Refusal } from './catalogue-form';
import type { GuardRefusal, SchemaIssue } from './catalogue-guard';
import { fieldWords } from './product-text';
import { SALE_WORDS } from './sale-form';

type Path = readonly (string | number)[];

/** The field a refusal belongs to, as the form knows it: `images.2.alt`; a list of words is one field (`sizes`). */
export function fieldOf(path: Path): string {
  const [top, index, ...rest] = path;
  if (top === undefined) return 'product';
  if (top === 'hasColors') return 'colors';
  if (top === 'sale') return typeof index === 'string' ? `sale.${index}` : 'sale.price';
  if ((top === 'images' || top === 'colors') && typeof index === 'number') {
    // A colour's key is made from its name: the name is what the editor changes.
    if (top === 'colors' && rest[0] === 'value') return `colors.${index}.name`;
    return [top, index, ...rest].join('.');
  }
  return String(top);
}

const ordinal = (path: Path) => (typeof path[1] === 'number' ? path[1] + 1 : 0);

/** A field's name as the form shows it: 'Picture 3: what it shows', 'Colour 2: hex code', 'Short description'. */
export function fieldLabel(path: Path): string {
  const [top, , ...rest] = path;
  const n = ordinal(path);
  const tail = rest.join('.');
  if (top === 'images' && n) return tail === 'alt' ? `Picture ${n}: what it shows` : `Picture ${n}`;
  if (top === 'colors' && n) {
    const part: Record<string, string> = {
      name: 'name',
      value: 'key',
      hex: 'hex code',
      image: 'picture',
      'image.src': 'picture',
      'image.alt': 'what its picture shows',
    };
    return part[tail] ? `Colour ${n}: ${part[tail]}` : `Colour ${n}`;
  }
  if (top === 'hasColors') return FIELD_LABELS.colors;
  if (top === 'sale') return path[1] === 'startsAt' ? 'Sale starts' : path[1] === 'endsAt' ? 'Sale ends' : 'Sale price';
  if (typeof top !== 'string') return 'The product';
  const known = (FIELD_LABELS as Record<string, string>)[top];
  if (known) return known;
  const words = fieldWords(top);
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** What a text field is for, said when it is left empty. */
const EMPTY: Record<string, string> = {
  name: 'The product needs a name.',
  category: 'Category label cannot be empty: it is the small label on product cards, for example Body Cream.',
  description: 'Short description cannot be empty: write one or two sentences for cards and search results.',
  detailedDescription: 'About this product cannot be empty: it is the description on the product’s page.',
  usage: 'How to use cannot be empty: write one step a line.',
  ingredients: 'Ingredients cannot be empty.',
  benefits: 'Benefits cannot be empty: write at least one, one a line.',
  sku: 'The product needs a SKU: upper-case letters, digits and dashes, for example AUR-TBO-4OZ.',
};

const at = (data: unknown, path: Path): unknown =>
  path.reduce<unknown>((v, key) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined), data);

const isEmpty = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');

const enumWords = (values: readonly unknown[]) =>
  values.length <= 1 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;

/** What the schema says of a sale, in the shop's words (SALE_WORDS for what the form says itself). */
function saleWords(path: Path, message: string, data: unknown): string {
  if (message === SALE_MESSAGES.decimals) return 'Sale price can have at most two decimals (whole cents), for example 29.99.';
  if (message === SALE_MESSAGES.tooLow) return 'Sale price must be at least $0.01.';
  if (message === SALE_MESSAGES.order) return SALE_WORDS.order;
  if (message.startsWith('the sale price must be lower')) {
    const price = at(data, ['price']);
    return `Sale price must be lower than the price${typeof price === 'number' ? ` (${formatPrice(Math.round(price * 100))})` : ''}.`;
  }
  if (path[1] === 'startsAt') return SALE_WORDS.startsAt;
  if (path[1] === 'endsAt') return SALE_WORDS.endsAt;
  if (path.length === 1) return 'The sale needs a price, a start and an end, and nothing else.';
  return SALE_WORDS.price;
}

/** One thing the build's schema refuses, in words, with its field; `data` is what the product file holds. */
export function schemaWords(issue: SchemaIssue, data: unknown): Refusal {
  const { path, code, message } = issue;
  const field = fieldOf(path);
  const label = fieldLabel(path);
  const top = path[0];
  const value = at(data, path);
  const n = ordinal(path);
  const said = (words: string): Refusal => ({ field, message: words });

  if (top === 'price') {
    if (message === PRICE_MESSAGES.tooLow)
      return said(typeof value === 'number' && value > 0 ? 'Price must be at least $0.01.' : 'Price must be more than $0.00.');
    if (message === PRICE_MESSAGES.tooHigh)
      return said(
        `Price can be at most ${formatPrice(MAX_PRICE_CENTS)}: five of it, with tax and shipping, must fit in one card payment (at most ${formatPrice(MAX_CHARGE_CENTS)}).`,
      );
    if (message === PRICE_MESSAGES.decimals) return said('Price can have at most two decimals (whole cents), for example 29.99.');
    return said('Enter the price in dollars, for example 45.00.');
  }
  if (top === 'sale') return said(saleWords(path, message, data));
  if (top === 'weight') {
    if (message === PRICE_MESSAGES.weightTooLow) return said(`Shipping weight must be at least ${MIN_WEIGHT_LB} lb.`);
    if (message === PRICE_MESSAGES.weightTooHigh)
      return said(
        `Shipping weight can be at most ${MAX_WEIGHT_LB} lb: five of it must fit in one parcel (at most ${MAX_PARCEL_LB} lb).`,
      );
    return said('Enter the weight in pounds, for example 1.2.');
  }
  if (top === 'images') {
    if (path.length === 1) return said('The product needs at least two pictures: upload or choose another one.');
    if (path[2] === 'alt') return said(`Picture ${n} needs a description for people who cannot see it.`);
    return said(`Picture ${n} must be one of the shop’s pictures: choose one from its list.`);
  }
  if (top === 'colors' || top === 'hasColors') {
    if (path.length === 1 && message.startsWith('two colours share the key')) {
      const colours = (Array.isArray(at(data, ['colors'])) ? at(data, ['colors']) : []) as { value?: unknown }[];
      const second = colours.findIndex((c, i) => colours.findIndex((d) => d?.value === c?.value) !== i);
      const first = colours.findIndex((c) => c?.value === colours[second]?.value);
      return {
        field: `colors.${second}.name`,
        message: `Colour ${second + 1} has the same key (“${String(colours[second]?.value)}”) as colour ${first + 1}: give it a name of its own.`,
      };
    }
    const tail = path.slice(2).join('.');
    if (tail === 'name') return said(`Colour ${n} needs a name.`);
    if (tail === 'value')
      return said(`Colour ${n} needs a name with letters or digits: its key in carts and stock counts is made from it.`);
    if (tail === 'hex') return said(`Colour ${n}’s hex code must look like #1f5fa8: a # and six digits or letters a to f.`);
    if (tail === 'image.alt') return said(`Colour ${n}’s picture needs a description for people who cannot see it.`);
    if (tail.startsWith('image'))
      return said(`Colour ${n}’s picture must be one of the shop’s pictures: choose one from its list.`);
    return said('Each colour needs a name, a hex code like #1f5fa8 and, if it has one, a described picture.');
  }
  if (top === 'mainCategories') {
    if (code === 'invalid_value' && issue.values) return said(`Home page categories can only be ${enumWords(issue.values)}.`);
    return said('Choose at least one home page category: the product shows under the home page’s filters.');
  }
  if (top === 'sizes') return said(`Sizes can only be ${enumWords(SIZES)}.`);
  if (top === 'sku')
    return said(
      isEmpty(value) ? (EMPTY.sku ?? '') : 'SKU can only have upper-case letters, digits and dashes, for example AUR-TBO-4OZ.',
    );
  if (top === 'specifications')
    return said('Write each specification on its own line as “label: value”, for example “size: 8 oz”.');
  if (top === 'inStock' || top === 'finalSale') return said(`${label} must be ticked or not ticked.`);
  if (top === 'benefits' && path.length > 1) return said('Benefits cannot have an empty line: one benefit a line.');
  if (typeof top === 'string' && EMPTY[top] && (code === 'too_small' || code === 'invalid_type')) return said(EMPTY[top] ?? '');
  if (code === 'too_small' || code === 'invalid_type') return said(`${label} cannot be empty.`);
  return said(`${label} is not valid: ${message}.`);
}

/** One thing the form's body schema refuses (text too long, a crafted request), in words. */
export function bodyWords(
  issue: SchemaIssue & { maximum?: unknown; origin?: unknown; keys?: readonly string[] },
  data: unknown,
): Refusal {
  const { path, code } = issue;
  const field = fieldOf(path);
  const label = fieldLabel(path);
  const value = at(data, path);
  if (code === 'custom') return { field, message: issue.message };
  if (code === 'too_big' && typeof value === 'string')
    return {
      field,
      message: `${label} can be at most ${String(issue.maximum)} characters: it has ${value.length}. Shorten it.`,
    };
  if (code === 'too_big' && Array.isArray(value))
    return { field, message: `${label}: at most ${String(issue.maximum)}, and there are ${value.length}. Remove some.` };
  if (path[0] === 'price' || path[0] === 'weight' || path[0] === 'inStock' || path[0] === 'finalSale')
    return schemaWords({ path, code: 'invalid_type', message: issue.message }, data);
  if (code === 'unrecognized_keys')
    return { field, message: `${label} holds something the editor does not change (${(issue.keys ?? []).join(', ')}).` };
  return { field, message: `${label} is not in the form the shop expects: reload the page and try again.` };
}

/**
 * A refusal of the catalogue guard in words. `undo`: the refusal is of an undo, which brings the product's text back
 * rather than saving the form, so it is said as what the undo would bring back.
 */
export function guardWords(refusal: GuardRefusal, undo = false): Refusal {
  switch (refusal.kind) {
    case 'schema':
      return schemaWords(refusal.issue, refusal.data);
    case 'picture': {
      const name = refusal.src.replace(/^\.\/images\//, '');
      const label =
        refusal.field[0] === 'colors' ? `Colour ${ordinal(refusal.field)}’s picture` : `Picture ${ordinal(refusal.field)}`;
      return {
        field: fieldOf(refusal.field),
        message: `${label} (${name}) is not among the shop’s pictures: upload it again, or choose another.`,
      };
    }
    case 'sku':
      return {
        field: 'sku',
        message: undo
          ? `It would bring back the SKU ${refusal.sku}, which ${refusal.otherName} now uses.`
          : `This SKU is already used by ${refusal.otherName}.`,
      };
    case 'id':
      return {
        field: 'product',
        message: `Product id ${refusal.id} is already the address of ${refusal.otherName}: ask a developer.`,
      };
    case 'colourKey':
      return {
        field: 'colors',
        message: `Colour “${refusal.colour.name}” keeps its key (${refusal.colour.value}): carts, stock counts and orders know the colour by it. Change its name or swatch instead; to sell another colour, add it as a new colour.`,
      };
    case 'path':
    case 'unreadable':
      return { field: 'product', message: `The product’s file cannot be saved: ${refusal.message} Ask a developer.` };
  }
}

/** What a refused save says as one message: each refusal's words, in order. */
export const refusalMessage = (refusals: readonly Refusal[]) => refusals.map((r) => r.message).join(' ');
