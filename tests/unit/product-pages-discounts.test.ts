/**
 * Discount codes and the automatic offer change what a cart costs, never what the catalogue says: a product page, its
 * JSON-LD (the price search engines show) and the sitemap are built from the catalogue alone, so creating, pausing or
 * ending a code, or turning the offer on, cannot change them (and no rebuild is needed). Checked on the source: nothing
 * the product page builds with, at build time or in its islands' first render, reads a discount table or the discounts'
 * server code, and the JSON-LD does not even know discounts exist. (The built pages themselves, before and after the
 * owner creates a code: tests/e2e/admin-discounts.spec.ts.)
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;
const DISCOUNT_TABLES = /\b(discount_codes|discount_offer|discount_redemptions)\b/;

function resolveSpecifier(specifier: string, from: string): string | null {
  let base: string;
  if (specifier.startsWith('@/')) base = `src/${specifier.slice(2)}`;
  else if (specifier.startsWith('.')) base = relative(root, resolve(root, dirname(from), specifier));
  else return null;
  const candidates = [base, ...['.ts', '.tsx', '.astro', '.mjs'].map((ext) => base + ext), `${base}/index.ts`];
  return candidates.find((path) => existsSync(join(root, path)) && /\.(ts|tsx|astro|mjs)$/.test(path)) ?? null;
}

/** Every source file `entry` loads, itself included, following static and dynamic imports (types too). */
function graph(entry: string): Set<string> {
  const seen = new Set<string>();
  const queue = [entry];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(SPECIFIER)) {
      const target = resolveSpecifier(m[1] ?? '', file);
      if (target && !seen.has(target)) queue.push(target);
    }
  }
  return seen;
}

const PRODUCT_PAGE = 'src/pages/product/[id].astro';

describe('product pages, their JSON-LD and the sitemap do not depend on discounts', () => {
  const files = [...graph(PRODUCT_PAGE)];

  it('reads the graph of the product page (the check below can fail)', () => {
    expect(files).toEqual(
      expect.arrayContaining([PRODUCT_PAGE, 'src/features/catalogue/jsonld.ts', 'src/layouts/BaseLayout.astro']),
    );
    expect(files.length).toBeGreaterThan(20);
  });

  it('nothing the product page is built with reads a discount table or the discounts’ server code', () => {
    const readers = files.filter(
      (f) =>
        DISCOUNT_TABLES.test(readFileSync(join(root, f), 'utf8')) ||
        f.startsWith('src/features/admin/') ||
        /^src\/features\/discounts\/.*\.server\.ts$/.test(f),
    );
    expect(readers).toEqual([]);
  });

  it('the JSON-LD is built from the catalogue alone: no discount module in its graph', () => {
    const jsonLd = [...graph('src/features/catalogue/jsonld.ts')];
    expect(jsonLd.filter((f) => f.includes('discount'))).toEqual([]);
  });

  it('every discounts page of the admin is rendered on demand, and the sitemap leaves /admin out', () => {
    const pages = readdirSync(join(root, 'src/pages/admin/discounts'));
    expect(pages.length).toBeGreaterThan(0);
    for (const page of pages)
      expect(readFileSync(join(root, 'src/pages/admin/discounts', page), 'utf8'), page).toContain(
        'export const prerender = false;',
      );
    const sitemap = readFileSync(join(root, 'src/features/catalogue/sitemap.ts'), 'utf8');
    expect(sitemap).toMatch(/PUBLIC_PAGES = \[[^\]]*'\/about'/);
    expect(sitemap).not.toMatch(/'\/admin/);
  });
});
