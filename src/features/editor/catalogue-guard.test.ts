import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { catalogueProblem, IMAGES_DIR, kindOfPath, PRODUCTS_DIR } from './catalogue-guard';

// The guard on a catalogue held in memory, as the shop's editor has it (the database's saves over the seed).
const files = new Map(
  readdirSync(PRODUCTS_DIR)
    .filter((name) => name.endsWith('.md'))
    .map((name) => [`${PRODUCTS_DIR}/${name}`, readFileSync(`${PRODUCTS_DIR}/${name}`, 'utf8')] as const),
);
const pictures = new Set(readdirSync(IMAGES_DIR));
const catalogue = { files, pictureExists: (name: string) => pictures.has(name) };
const FILE = `${PRODUCTS_DIR}/03-clinical-scrubs.md`;
const scrubs = files.get(FILE) ?? '';
const save = (path: string, text: string) => ({ additions: [{ path, contents: new TextEncoder().encode(text) }], deletions: [] });

describe('the catalogue guard', () => {
  it('accepts the seed as it is', () => {
    expect(catalogueProblem(catalogue, save(FILE, scrubs))).toBeNull();
  });

  it('refuses a price with three decimals with the schema’s message, not a rounded price', () => {
    expect(catalogueProblem(catalogue, save(FILE, scrubs.replace('price: 45', 'price: 29.999')))).toBe(
      `${FILE}: price: price must have at most two decimals`,
    );
  });

  it('writes product files and pictures only, never a path outside the content folder', () => {
    for (const path of [
      'content/products/../../src/pages/x.md',
      'content/products/images/../../../x.svg',
      'content/products/./03-clinical-scrubs.md',
      'content/products//03-clinical-scrubs.md',
      'content\\products\\x.md',
      '/etc/passwd',
      'content/products/images/.hidden.svg',
      'content/products/03-clinical-scrubs.md.astro',
      'src/pages/evil.astro',
    ]) {
      expect(kindOfPath(path), path).toBeNull();
      expect(catalogueProblem(catalogue, save(path, scrubs)), path).toMatch(/writes only product files/);
    }
    expect(kindOfPath(FILE)).toBe('product');
    expect(kindOfPath(`${IMAGES_DIR}/a-1.svg`)).toBe('picture');
    expect(catalogueProblem(catalogue, { additions: [], deletions: [{ path: 'src/middleware.ts' }] })).toMatch(
      /deletes only product files/,
    );
  });

  it('a picture must exist: in the seed’s folder, uploaded, or written by the same save', () => {
    const text = scrubs.replace('./images/clinical-scrubs-detail.svg', './images/new-1a2b.svg');
    expect(catalogueProblem(catalogue, save(FILE, text))).toBe(
      `${FILE}: images: ./images/new-1a2b.svg is not in ${IMAGES_DIR}/ (upload it first).`,
    );
    expect(
      catalogueProblem({ ...catalogue, pictureExists: (n) => n === 'new-1a2b.svg' || pictures.has(n) }, save(FILE, text)),
    ).toBeNull();
  });

  it('ids and SKUs stay unique across the catalogue as saved', () => {
    expect(catalogueProblem(catalogue, save(FILE, scrubs.replace('id: 3\n', 'id: 1\n')))).toBe(
      `${FILE}: id: 1 is already the id of ${PRODUCTS_DIR}/01-vitamin-c-body-cream.md; ids must be unique.`,
    );
    expect(catalogueProblem(catalogue, save(FILE, scrubs.replace('sku: AUR-SCRB-SET', 'sku: AUR-VCBC-8OZ')))).toMatch(
      /sku: AUR-VCBC-8OZ is already the SKU of/,
    );
  });
});
