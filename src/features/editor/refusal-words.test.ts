import { readdirSync, readFileSync } from 'node:fs';
import { dump } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { productFieldsBody } from './catalogue-edit.server';
import { inputFor, type Refusal } from './catalogue-form';
import { catalogueRefusals, frontMatter, IMAGES_DIR, PRODUCTS_DIR } from './catalogue-guard';
import { EDITABLE_FIELDS } from './product-text';
import { bodyWords, guardWords } from './refusal-words';

// Every refusal an editor can meet, from the real schema and guard, said in the shop's words beside the field the form
// shows: one row per field and per way it can be wrong.

const files = new Map(
  readdirSync(PRODUCTS_DIR)
    .filter((name) => name.endsWith('.md'))
    .map((name) => [`${PRODUCTS_DIR}/${name}`, readFileSync(`${PRODUCTS_DIR}/${name}`, 'utf8')] as const),
);
const pictures = new Set(readdirSync(IMAGES_DIR));
const FILE = `${PRODUCTS_DIR}/03-clinical-scrubs.md`;
const scrubs = frontMatter(files.get(FILE) ?? '') as Record<string, unknown> & {
  images: { src: string; alt: string }[];
  colors: { name: string; value: string; hex: string; image?: { src: string; alt: string } }[];
};

/** The refusals, in words, of saving the scrubs with `change` applied to their front matter. */
function refusalsOf(change: (p: typeof scrubs) => void): Refusal[] {
  const product = structuredClone(scrubs);
  change(product);
  const text = `---\n${dump(product, { lineWidth: -1 })}---\n`;
  return catalogueRefusals(
    { files, pictureExists: (name) => pictures.has(name) },
    { additions: [{ path: FILE, contents: new TextEncoder().encode(text) }], deletions: [] },
  ).map((r) => guardWords(r));
}

type Row = [what: string, change: (p: typeof scrubs) => void, field: string, message: string];

const TWO_DECIMALS = 'Price can have at most two decimals (whole cents), for example 29.99.';
const TOO_DEAR =
  'Price can be at most $183,471.07: five of it, with tax and shipping, must fit in one card payment (at most $999,999.99).';

const ROWS: Row[] = [
  ['an empty name', (p) => Object.assign(p, { name: '' }), 'name', 'The product needs a name.'],
  ['a name of spaces', (p) => Object.assign(p, { name: '   ' }), 'name', 'The product needs a name.'],
  [
    'an empty category label',
    (p) => Object.assign(p, { category: '' }),
    'category',
    'Category label cannot be empty: it is the small label on product cards, for example Body Cream.',
  ],
  [
    'no home page category',
    (p) => Object.assign(p, { mainCategories: [] }),
    'mainCategories',
    'Choose at least one home page category: the product shows under the home page’s filters.',
  ],
  [
    'a home page category the shop has not',
    (p) => Object.assign(p, { mainCategories: ['toys'] }),
    'mainCategories',
    'Home page categories can only be skincare, haircare, scrub set, medical supplies or accessories.',
  ],
  ['a price of nothing', (p) => Object.assign(p, { price: 0 }), 'price', 'Price must be more than $0.00.'],
  ['a price below nothing', (p) => Object.assign(p, { price: -45 }), 'price', 'Price must be more than $0.00.'],
  ['a price under a cent', (p) => Object.assign(p, { price: 0.001 }), 'price', 'Price must be at least $0.01.'],
  ['a price of three decimals', (p) => Object.assign(p, { price: 29.999 }), 'price', TWO_DECIMALS],
  ['a price too high to charge', (p) => Object.assign(p, { price: 183_471.08 }), 'price', TOO_DEAR],
  [
    'a price that is text',
    (p) => Object.assign(p, { price: 'forty' }),
    'price',
    'Enter the price in dollars, for example 45.00.',
  ],
  [
    'an empty short description',
    (p) => Object.assign(p, { description: '' }),
    'description',
    'Short description cannot be empty: write one or two sentences for cards and search results.',
  ],
  [
    'an empty product page description',
    (p) => Object.assign(p, { detailedDescription: ' ' }),
    'detailedDescription',
    'About this product cannot be empty: it is the description on the product’s page.',
  ],
  [
    'one picture',
    (p) => Object.assign(p, { images: p.images.slice(0, 1) }),
    'images',
    'The product needs at least two pictures: upload or choose another one.',
  ],
  [
    'a picture with no description',
    (p) => Object.assign(p.images[2] ?? {}, { alt: '' }),
    'images.2.alt',
    'Picture 3 needs a description for people who cannot see it.',
  ],
  [
    'a picture from elsewhere',
    (p) => Object.assign(p.images[1] ?? {}, { src: 'https://elsewhere.example/x.png' }),
    'images.1.src',
    'Picture 2 must be one of the shop’s pictures: choose one from its list.',
  ],
  [
    'a picture the shop does not have',
    (p) => Object.assign(p.images[0] ?? {}, { src: './images/gone-1a2b.png' }),
    'images.0.src',
    'Picture 1 (gone-1a2b.png) is not among the shop’s pictures: upload it again, or choose another.',
  ],
  ['a colour with no name', (p) => Object.assign(p.colors[1] ?? {}, { name: '' }), 'colors.1.name', 'Colour 2 needs a name.'],
  [
    'a colour whose key is empty (a name of symbols)',
    (p) => p.colors.push({ name: '!!', value: '', hex: '#6d1f2f' }),
    'colors.4.name',
    'Colour 5 needs a name with letters or digits: its key in carts and stock counts is made from it.',
  ],
  [
    'a colour’s hex code',
    (p) => Object.assign(p.colors[0] ?? {}, { hex: 'blue' }),
    'colors.0.hex',
    'Colour 1’s hex code must look like #1f5fa8: a # and six digits or letters a to f.',
  ],
  [
    'a colour’s picture with no description',
    (p) => Object.assign(p.colors[2]?.image ?? {}, { alt: '' }),
    'colors.2.image.alt',
    'Colour 3’s picture needs a description for people who cannot see it.',
  ],
  [
    'a colour’s picture the shop does not have',
    (p) => Object.assign(p.colors[0]?.image ?? {}, { src: './images/gone-1a2b.png' }),
    'colors.0.image.src',
    'Colour 1’s picture (gone-1a2b.png) is not among the shop’s pictures: upload it again, or choose another.',
  ],
  [
    'two colours with one key',
    (p) => p.colors.push({ name: 'Blue again', value: 'blue', hex: '#2a5fb8' }),
    'colors.4.name',
    'Colour 5 has the same key (“blue”) as colour 1: give it a name of its own.',
  ],
  [
    'a colour whose key changed',
    (p) => Object.assign(p.colors[0] ?? {}, { value: 'navy' }),
    'colors',
    'Colour “Blue” keeps its key (blue): carts, stock counts and orders know the colour by it. Change its name or swatch instead; to sell another colour, add it as a new colour.',
  ],
  [
    'colours listed but not said to be there',
    (p) => Object.assign(p, { hasColors: false }),
    'colors',
    'Each colour needs a name, a hex code like #1f5fa8 and, if it has one, a described picture.',
  ],
  ['a size the shop has not', (p) => Object.assign(p, { sizes: ['XXXL'] }), 'sizes', 'Sizes can only be XS, S, M, L, XL or XXL.'],
  ['no steps of use', (p) => Object.assign(p, { usage: '' }), 'usage', 'How to use cannot be empty: write one step a line.'],
  [
    'a specification that is a list',
    (p) => Object.assign(p, { specifications: { size: ['S', 'M'] } }),
    'specifications',
    'Write each specification on its own line as “label: value”, for example “size: 8 oz”.',
  ],
  ['in stock as text', (p) => Object.assign(p, { inStock: 'yes' }), 'inStock', 'In stock must be ticked or not ticked.'],
  ['final sale as text', (p) => Object.assign(p, { finalSale: 'yes' }), 'finalSale', 'Final sale must be ticked or not ticked.'],
  [
    'no SKU',
    (p) => Object.assign(p, { sku: '' }),
    'sku',
    'The product needs a SKU: upper-case letters, digits and dashes, for example AUR-TBO-4OZ.',
  ],
  [
    'a SKU in lower case',
    (p) => Object.assign(p, { sku: 'aur-scrb' }),
    'sku',
    'SKU can only have upper-case letters, digits and dashes, for example AUR-TBO-4OZ.',
  ],
  [
    'a SKU another product has',
    (p) => Object.assign(p, { sku: 'AUR-VCBC-8OZ' }),
    'sku',
    'This SKU is already used by Vitamin C Body Cream.',
  ],
  ['a weight of nothing', (p) => Object.assign(p, { weight: 0 }), 'weight', 'Shipping weight must be at least 0.01 lb.'],
  [
    'a weight no parcel takes five of',
    (p) => Object.assign(p, { weight: 30.01 }),
    'weight',
    'Shipping weight can be at most 30 lb: five of it must fit in one parcel (at most 150 lb).',
  ],
  [
    'a weight that is text',
    (p) => Object.assign(p, { weight: 'heavy' }),
    'weight',
    'Enter the weight in pounds, for example 1.2.',
  ],
  [
    'no benefits',
    (p) => Object.assign(p, { benefits: [] }),
    'benefits',
    'Benefits cannot be empty: write at least one, one a line.',
  ],
  [
    'an empty benefit',
    (p) => Object.assign(p, { benefits: ['Breathable', ''] }),
    'benefits',
    'Benefits cannot have an empty line: one benefit a line.',
  ],
  ['no ingredients', (p) => Object.assign(p, { ingredients: '' }), 'ingredients', 'Ingredients cannot be empty.'],
  [
    'a sale price not below the price',
    (p) => Object.assign(p, { sale: { price: 45, startsAt: '2026-12-09T09:00:00-05:00', endsAt: '2026-12-10T00:00:00-05:00' } }),
    'sale.price',
    'Sale price must be lower than the price ($45.00).',
  ],
  [
    'a sale that ends before it starts',
    (p) => Object.assign(p, { sale: { price: 39, startsAt: '2026-12-10T00:00:00-05:00', endsAt: '2026-12-09T09:00:00-05:00' } }),
    'sale.endsAt',
    'The sale must end after it starts.',
  ],
  [
    'a sale start without its offset from UTC (whose clock?)',
    (p) => Object.assign(p, { sale: { price: 39, startsAt: '2026-12-09T09:00', endsAt: '2026-12-10T00:00:00-05:00' } }),
    'sale.startsAt',
    'Choose the date and time the sale starts.',
  ],
  [
    'an id another product has (a file edited by hand)',
    (p) => Object.assign(p, { id: 1 }),
    'product',
    'Product id 1 is already the address of Vitamin C Body Cream: ask a developer.',
  ],
];

describe('a refused save, in the shop’s words', () => {
  it.each(ROWS)('%s: said beside its field', (_, change, field, message) => {
    expect(refusalsOf(change)).toEqual([{ field, message }]);
  });

  it('covers every field of the form, and each refusal has an input of the form to sit beside', () => {
    const fields = new Set(ROWS.map(([, , field]) => field.split('.')[0]));
    for (const key of EDITABLE_FIELDS) expect(fields, key).toContain(key);
    for (const [what, , field] of ROWS) {
      if (field !== 'product') expect(inputFor(field), what).not.toBe('product');
    }
  });

  it('says everything wrong at once: a price, a description and a SKU in one save', () => {
    const all = refusalsOf((p) => {
      Object.assign(p, { price: 0, sku: 'AUR-VCBC-8OZ' });
      Object.assign(p.images[2] ?? {}, { alt: '' });
    });
    expect(all).toEqual([
      { field: 'price', message: 'Price must be more than $0.00.' },
      { field: 'images.2.alt', message: 'Picture 3 needs a description for people who cannot see it.' },
      { field: 'sku', message: 'This SKU is already used by Vitamin C Body Cream.' },
    ]);
  });

  it('an undo that would bring back a SKU another product took says so', () => {
    const [sku] = catalogueRefusals(
      { files, pictureExists: (name) => pictures.has(name) },
      {
        additions: [
          {
            path: FILE,
            contents: new TextEncoder().encode((files.get(FILE) ?? '').replace('sku: AUR-SCRB-SET', 'sku: AUR-VCBC-8OZ')),
          },
        ],
        deletions: [],
      },
    );
    expect(sku && guardWords(sku, true)).toEqual({
      field: 'sku',
      message: 'It would bring back the SKU AUR-VCBC-8OZ, which Vitamin C Body Cream now uses.',
    });
  });
});

describe('a form body the shop cannot read, in words', () => {
  const body = (fields: Record<string, unknown>): Refusal[] => {
    const parsed = productFieldsBody.safeParse(fields);
    if (parsed.success) return [];
    return parsed.error.issues.map((i) => bodyWords({ ...i, path: i.path as (string | number)[] }, fields));
  };

  it.each<[string, Record<string, unknown>, Refusal[]]>([
    [
      'a name longer than the form takes',
      { name: 'x'.repeat(230) },
      [{ field: 'name', message: 'Name can be at most 200 characters: it has 230. Shorten it.' }],
    ],
    [
      'a picture’s description longer than the form takes',
      {
        images: [
          { src: './images/a.svg', alt: 'a' },
          { src: './images/b.svg', alt: 'b'.repeat(501) },
        ],
      },
      [{ field: 'images.1.alt', message: 'Picture 2: what it shows can be at most 500 characters: it has 501. Shorten it.' }],
    ],
    [
      'too many pictures',
      { images: Array.from({ length: 21 }, () => ({ src: './images/a.svg', alt: 'a' })) },
      [{ field: 'images', message: 'Pictures: at most 20, and there are 21. Remove some.' }],
    ],
    ['a price sent as text', { price: '45' }, [{ field: 'price', message: 'Enter the price in dollars, for example 45.00.' }]],
    ['a weight sent as text', { weight: '1' }, [{ field: 'weight', message: 'Enter the weight in pounds, for example 1.2.' }]],
    ['final sale as text', { finalSale: 'yes' }, [{ field: 'finalSale', message: 'Final sale must be ticked or not ticked.' }]],
    [
      'the id',
      { id: 99 },
      [{ field: 'id', message: 'The id, the file name and the like count cannot be changed in the editor.' }],
    ],
    ['a field the form has not', { colour: 'red' }, [{ field: 'colour', message: 'colour is not a field the editor changes.' }]],
    [
      'a picture with a part the form has not',
      { images: [{ src: './images/a.svg', alt: 'a', title: 'x' }] },
      [{ field: 'images.0', message: 'Picture 1 holds something the editor does not change (title).' }],
    ],
    [
      'a list where text goes',
      { usage: ['one'] },
      [{ field: 'usage', message: 'How to use is not in the form the shop expects: reload the page and try again.' }],
    ],
  ])('%s', (_, fields, expected) => {
    expect(body(fields)).toEqual(expected);
  });
});

describe('every message is a sentence for people', () => {
  it('starts with a capital, ends with a full stop, and names no file, schema code or path', () => {
    const messages = ROWS.flatMap(([, change]) => refusalsOf(change).map((r) => r.message));
    for (const message of messages) {
      expect(message, message).toMatch(/^[A-Z“].*\.$/s);
      expect(message, message).not.toMatch(/content\/products|expected|Too small|Too big|invalid|\b\w+\.\d+\.\w+\b/i);
    }
  });
});
