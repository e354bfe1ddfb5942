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

  it('refuses a finalSale that is not true or false, naming the file and the field', () => {
    const text = scrubs.replace('finalSale: false\n', 'finalSale: yes\n');
    expect(catalogueProblem(catalogue, save(FILE, text))).toBe(`${FILE}: finalSale: finalSale must be true or false`);
    expect(catalogueProblem(catalogue, save(FILE, text.replace('finalSale: yes', 'finalSale: true')))).toBeNull();
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

  it('a price is a whole number of cents from $0.01 to what five of it, with tax and shipping, can be charged', () => {
    const priced = (price: string) => catalogueProblem(catalogue, save(FILE, scrubs.replace('price: 45\n', `price: ${price}\n`)));
    // Each of these was once saved, published as $0.00 or made every checkout of it a 500.
    expect(priced('1e-9')).toBe(`${FILE}: price: price must be at least $0.01`);
    expect(priced('0')).toBe(`${FILE}: price: price must be at least $0.01`);
    expect(priced('-5')).toBe(`${FILE}: price: price must be at least $0.01`);
    const tooHigh = `${FILE}: price: price must be at most $183,471.07: five of it, with tax and shipping, must fit in one card payment (at most $999,999.99)`;
    expect(priced('30000000')).toBe(tooHigh);
    expect(priced('1e20')).toBe(tooHigh);
    expect(priced('183471.08')).toBe(tooHigh);
    expect(priced('.Inf')).toMatch(/^.+: price: /);
    expect(priced('.NaN')).toMatch(/^.+: price: /);
    expect(priced('0.01')).toBeNull();
    expect(priced('183471.07')).toBeNull();
  });

  it('a weight is from 0.01 lb to what five of it can weigh in the shop’s one parcel', () => {
    const weighed = (weight: string) =>
      catalogueProblem(catalogue, save(FILE, scrubs.replace('weight: 1.2\n', `weight: ${weight}\n`)));
    expect(weighed('1e-9')).toBe(`${FILE}: weight: weight must be at least 0.01 lb`);
    expect(weighed('-1')).toBe(`${FILE}: weight: weight must be at least 0.01 lb`);
    const tooHeavy = `${FILE}: weight: weight must be at most 30 lb: five of it must fit in one parcel (at most 150 lb)`;
    expect(weighed('1e20')).toBe(tooHeavy);
    expect(weighed('30.01')).toBe(tooHeavy);
    expect(weighed('0.01')).toBeNull();
    expect(weighed('30')).toBeNull();
  });

  it('a colour’s key stays as it is: the name and swatch may change, the key may not; a new colour has a key of its own', () => {
    // The name and the swatch change; the key (value) stays.
    expect(
      catalogueProblem(
        catalogue,
        save(FILE, scrubs.replace('  - name: Blue\n', '  - name: Royal Blue\n').replace('"#1f5fa8"', '"#2a5fb8"')),
      ),
    ).toBeNull();
    // The key changes in place: refused, whether the colour keeps its name or only its swatch.
    const keyed = `${FILE}: colours: the key of “Blue” (blue) cannot change: carts, stock counts and orders know the colour by it. Change its name or swatch instead; to sell another colour, add it as a new colour.`;
    expect(catalogueProblem(catalogue, save(FILE, scrubs.replace('value: blue\n', 'value: blue-two\n')))).toBe(keyed);
    expect(
      catalogueProblem(
        catalogue,
        save(FILE, scrubs.replace('  - name: Blue\n    value: blue\n', '  - name: Navy\n    value: navy\n')),
      ),
    ).toBe(keyed);
    // Two colours may not share a key.
    expect(catalogueProblem(catalogue, save(FILE, scrubs.replace('value: grey\n', 'value: blue\n')))).toBe(
      `${FILE}: colors: two colours share the key “blue”; each colour needs its own`,
    );
    // A colour taken away with nothing in its place is the shop's editor's to judge (it knows the stock counts).
    const withoutBlack = scrubs.replace(/ {2}- name: Black\n(?: {4}.*\n)+/, '');
    expect(withoutBlack).not.toContain('value: black');
    expect(catalogueProblem(catalogue, save(FILE, withoutBlack))).toBeNull();
  });
});
