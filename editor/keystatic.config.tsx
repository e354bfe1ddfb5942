// The content editor's form for one product: every field of src/features/catalogue/product.schema.ts, in the order the
// files list them, with the schema's limits and messages. editor/keystatic.config.test.ts fails if the two drift.
import { collection, config, fields } from '@keystatic/core';
import { MAIN_CATEGORIES, SIZES } from '@/features/catalogue/categories';
import { PRODUCT_PATTERNS } from '@/features/catalogue/product.schema';
import { picture, sale, specifications } from './fields';

const required = { isRequired: true } as const;
const text = (label: string, description?: string) =>
  fields.text({ label, validation: { isRequired: true }, ...(description ? { description } : {}) });
const multiline = (label: string, description?: string) =>
  fields.text({ label, multiline: true, validation: { isRequired: true }, ...(description ? { description } : {}) });
const matching = (label: string, pattern: { regex: RegExp; message: string }, description?: string) =>
  fields.text({ label, validation: { isRequired: true, pattern }, ...(description ? { description } : {}) });

/** The product form's fields, keyed as in the files' front matter (plus `body`, the unused markdown after it). */
export const productFields = {
  id: fields.integer({
    label: 'Id',
    description: 'The page is /product/<id>; unique',
    validation: { isRequired: true, min: 1 },
  }),
  name: fields.slug({
    name: { label: 'Name', validation: { isRequired: true } },
    slug: { label: 'File name', description: 'content/products/<file name>.md, e.g. 10-rose-face-oil' },
  }),
  category: text('Category', 'The small label on cards: Body Cream, Body Oil, scrubs, …'),
  mainCategories: fields.multiselect({
    label: 'Main categories',
    description: 'At least one: the home page chips',
    options: MAIN_CATEGORIES.map((c) => ({ label: c, value: c })),
  }),
  price: fields.number({
    label: 'Price (dollars)',
    description: 'More than 0, at most two decimals',
    step: 0.01,
    validation: { isRequired: true, min: 0.01 },
  }),
  sale: sale({ label: 'Sale (optional)' }),
  description: multiline('Description', 'One or two sentences for cards and search results'),
  detailedDescription: multiline('Detailed description', 'The product page’s “About this product”'),
  images: fields.array(picture({ label: 'Image' }), {
    label: 'Images',
    description: 'At least two; the first is the main picture',
    itemLabel: (props) => (props.value as { src?: string }).src || 'New image',
    validation: { length: { min: 2 } },
  }),
  hasColors: fields.checkbox({ label: 'Has colours', description: 'Tick exactly when colours are listed below' }),
  colors: fields.array(
    fields.object({
      name: text('Colour name'),
      value: matching('Value', PRODUCT_PATTERNS.colorValue, 'A lowercase slug used in cart ids, e.g. navy-blue'),
      hex: matching('Hex', PRODUCT_PATTERNS.hex, 'e.g. #1f5fa8'),
      image: picture({ label: 'Colour picture (optional)', optional: true }),
    }),
    { label: 'Colours', itemLabel: (props) => props.fields.name.value || 'New colour' },
  ),
  sizes: fields.multiselect({ label: 'Sizes', options: SIZES.map((s) => ({ label: s, value: s })) }),
  usage: multiline('Usage', 'One step per line; a leading “1.” is dropped and the steps become a numbered list'),
  specifications: specifications({
    label: 'Specifications',
    description: 'One “label: value” per line, e.g. keyIngredient: Vitamin C; camelCase labels are shown as words',
  }),
  inStock: fields.checkbox({ label: 'In stock', description: 'Unticked: “Out of stock”, and it cannot be bought' }),
  finalSale: fields.checkbox({
    label: 'Final sale',
    description: 'Ticked: it cannot be returned (opened skincare, for hygiene); its page and orders say so',
  }),
  sku: matching('SKU', PRODUCT_PATTERNS.sku, 'Upper-case letters, digits and dashes; unique'),
  weight: fields.number({ label: 'Weight (pounds)', description: 'Used for shipping', validation: { ...required, min: 0.001 } }),
  likes: fields.integer({ label: 'Likes', description: 'The starting like count', validation: { ...required, min: 0 } }),
  benefits: fields.array(text('Benefit'), {
    label: 'Benefits',
    itemLabel: (props) => props.value || 'New benefit',
    validation: { length: { min: 1 } },
  }),
  ingredients: multiline('Ingredients'),
  reviews: fields.array(
    fields.object({
      id: text('Review id', 'Unique, e.g. r-1-4'),
      author: text('Author (e-mail)', 'Shown masked: ma***@example.com'),
      rating: fields.integer({ label: 'Rating (1 to 5)', validation: { isRequired: true, min: 1, max: 5 } }),
      date: fields.date({ label: 'Date', validation: { isRequired: true } }),
      comment: multiline('Comment'),
      verified: fields.checkbox({ label: 'Verified purchase' }),
    }),
    { label: 'Catalogue reviews', itemLabel: (props) => props.fields.author.value || 'New review' },
  ),
  body: fields.emptyContent({ extension: 'md' }),
};

export default config({
  storage: { kind: 'local' },
  ui: { brand: { name: 'Aurelia catalogue' } },
  collections: {
    products: collection({
      label: 'Products',
      path: 'content/products/*',
      slugField: 'name',
      format: { contentField: 'body' },
      columns: ['name', 'price', 'sku'],
      previewUrl: '/editor/preview/{slug}',
      schema: productFields,
    }),
  },
});
