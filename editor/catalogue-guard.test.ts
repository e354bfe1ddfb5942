import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileProblems, PRODUCTS_DIR, updateProblem } from './catalogue-guard';

const root = mkdtempSync(join(tmpdir(), 'aurelia-guard-'));
cpSync('content', join(root, 'content'), { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

const FILE = `${PRODUCTS_DIR}/01-vitamin-c-body-cream.md`;
const original = readFileSync(join(root, FILE), 'utf8');
const save = (path: string, text: string) => ({ additions: [{ path, contents: new TextEncoder().encode(text) }], deletions: [] });

describe('the editor’s save guard', () => {
  it('accepts every product file as it is in the repository', async () => {
    expect(await updateProblem(root, save(FILE, original))).toBeNull();
  });

  it('refuses what the build’s schema refuses, naming the field', async () => {
    expect(await updateProblem(root, save(FILE, original.replace('price: 35', 'price: -1')))).toMatch(
      /^content\/products\/01-vitamin-c-body-cream\.md: price: /,
    );
    expect(await updateProblem(root, save(FILE, original.replace(/^sku: .*$/m, 'sku: lower-case')))).toContain(
      'sku: sku must be upper-case letters, digits and dashes',
    );
    expect(fileProblems(original.replace('hasColors: false', 'hasColors: true')).problems).toEqual([
      'colors: hasColors must be true exactly when colors are listed',
    ]);
  });

  it('refuses an id or SKU another product has, also for a new product', async () => {
    const copy = `${PRODUCTS_DIR}/10-copy.md`;
    expect(await updateProblem(root, save(copy, original))).toBe(
      `${copy}: id: 1 is already the id of ${FILE}; ids must be unique.`,
    );
    expect(await updateProblem(root, save(copy, original.replace('id: 1\n', 'id: 10\n')))).toBe(
      `${copy}: sku: AUR-VCBC-8OZ is already the SKU of ${FILE}; SKUs must be unique.`,
    );
    const renamed = { ...save(copy, original), deletions: [{ path: FILE }] };
    expect(await updateProblem(root, renamed)).toBeNull();
  });

  it('refuses a picture that is not in content/products/images/, and files outside the catalogue', async () => {
    expect(await updateProblem(root, save(FILE, original.replace('vitamin-c-body-cream-open.svg', 'nope.svg')))).toBe(
      `${FILE}: images: ./images/nope.svg is not in content/products/images/ (upload it first).`,
    );
    const upload = save('content/products/images/nope.svg', '<svg xmlns="http://www.w3.org/2000/svg"/>');
    expect(
      await updateProblem(root, {
        ...upload,
        additions: [...upload.additions, ...save(FILE, original.replace('vitamin-c-body-cream-open.svg', 'nope.svg')).additions],
      }),
    ).toBeNull();
    expect(await updateProblem(root, save('src/pages/evil.astro', 'x'))).toMatch(/writes only product files/);
  });

  it('refuses a picture the shop’s own editor would refuse, saying why', async () => {
    const evil = save(
      'content/products/images/evil.svg',
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:a.b="http://www.w3.org/2000/svg"><a.b:script>alert(1)</a.b:script></svg>',
    );
    expect(await updateProblem(root, evil)).toBe(
      'content/products/images/evil.svg: This SVG contains a <a.b:script> element, which could run in the shop’s pages.',
    );
    expect(await updateProblem(root, save('content/products/images/page.png', '<html></html>'))).toMatch(
      /^content\/products\/images\/page\.png: The file is not a picture/,
    );
  });
});
