import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  createWords,
  productsChanged,
  publishedWords,
  publishFailedWords,
  publishRequestWords,
  saveWords,
  undoWords,
  uploadWords,
} from './activity-words';
import { PRODUCTS_DIR } from './catalogue-guard';
import { editProductText } from './product-text';

const read = (name: string) => readFileSync(`${PRODUCTS_DIR}/${name}`, 'utf8');
const oil = read('06-turmeric-body-oil.md');
const scrubs = read('03-clinical-scrubs.md');

describe('what editors did, in the owner’s activity log', () => {
  it('says a one-field save as a sentence: the field, the product, before and after', () => {
    expect(saveWords(oil, editProductText(oil, { price: 29.99 }))).toBe('changed the price of Turmeric Body Oil $35.00 → $29.99');
    expect(saveWords(scrubs, editProductText(scrubs, { sku: 'AUR-SCRB-2' }))).toBe(
      'changed the SKU of Clinical Scrubs “AUR-SCRB-SET” → “AUR-SCRB-2”',
    );
    expect(saveWords(scrubs, editProductText(scrubs, { weight: 1.5 }))).toMatch(
      /^changed the weight of Clinical Scrubs [\d.]+ lb → 1\.5 lb$/,
    );
  });

  it('says any other save with the history’s words for it', () => {
    expect(saveWords(scrubs, editProductText(scrubs, { inStock: false, name: 'Clinical Scrub Set' }))).toBe(
      'changed Clinical Scrubs: name “Clinical Scrubs” → “Clinical Scrub Set”; out of stock',
    );
    expect(saveWords(scrubs, editProductText(scrubs, { inStock: false }))).toBe('changed Clinical Scrubs: out of stock');
    expect(saveWords(scrubs, editProductText(scrubs, { sizes: ['S', 'M'] }))).toMatch(
      /^changed Clinical Scrubs: sizes: removed “XS”/,
    );
  });

  it('says an undo, a new product and an upload', () => {
    const cheaper = editProductText(oil, { price: 29.99 });
    expect(undoWords(cheaper, oil, 'price $35.00 → $29.99')).toBe(
      'undid “price $35.00 → $29.99” on Turmeric Body Oil: price $29.99 → $35.00',
    );
    expect(createWords('Rose Face Oil', 10, oil)).toBe('created Rose Face Oil (/product/10), a copy of Turmeric Body Oil');
    expect(uploadWords('jar-0123456789ab.png')).toBe('uploaded the picture jar-0123456789ab.png');
  });

  it('says a publish by the products it changes for shoppers, and a failure by its reason', () => {
    const live = new Map([
      ['03-clinical-scrubs.md', scrubs],
      ['06-turmeric-body-oil.md', oil],
    ]);
    const saved = new Map([
      ['03-clinical-scrubs.md', editProductText(scrubs, { price: 47 })],
      ['06-turmeric-body-oil.md', editProductText(oil, { price: 29.99 })],
      ['10-rose-face-oil.md', editProductText(oil, { id: 10, name: 'Rose Face Oil' })],
    ]);
    expect(productsChanged(live, live)).toEqual([]);
    expect(productsChanged(live, saved)).toEqual(['Clinical Scrubs', 'Turmeric Body Oil', 'Rose Face Oil']);
    expect(publishRequestWords(['Turmeric Body Oil'])).toBe('publish requested: 1 product changed (Turmeric Body Oil)');
    expect(publishRequestWords([])).toBe('publish requested: nothing changed since the last publish');
    expect(publishedWords(['Clinical Scrubs', 'Turmeric Body Oil'])).toBe(
      'published: 2 products changed (Clinical Scrubs, Turmeric Body Oil)',
    );
    expect(publishedWords([])).toBe('published: nothing changed');
    const many = ['A', 'B', 'C', 'D', 'E', 'F', 'G'];
    expect(publishedWords(many)).toBe('published: 7 products changed (A, B, C, D, E and 2 more)');
    expect(publishFailedWords('The build could not finish: price must be positive')).toBe(
      'publish failed: The build could not finish: price must be positive',
    );
  });
});
