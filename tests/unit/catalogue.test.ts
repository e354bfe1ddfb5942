import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'astro/zod';
import { describe, expect, it } from 'vitest';
import { isFinalSale } from '@/features/catalogue/catalogue';
import { SIZES } from '@/features/catalogue/categories';
import { FINAL_SALE_MESSAGE, productSchema } from '@/features/catalogue/product.schema';
import { frontmatter, loadCatalogue, loadCatalogueIndex, PRODUCTS_DIR } from './load-catalogue';

const catalogue = loadCatalogue();
const products = catalogue.map((c) => c.product);
const byId = (id: number) => {
  const p = products.find((x) => x.id === id);
  if (!p) throw new Error(`no product ${id}`);
  return p;
};

describe('the catalogue (product spec)', () => {
  it('has nine products with ids 1 to 9 in the order the spec lists them', () => {
    expect(products.map((p) => p.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('has the spec’s names and prices, in cents', () => {
    expect(products.map((p) => [p.name, p.priceCents])).toEqual([
      ['Vitamin C Body Cream', 3500],
      ['Turmeric Body Butter', 2500],
      ['Clinical Scrubs', 4500],
      ['Vitamin C Trio Set', 9000],
      ['Vitamin C Body Butter', 3000],
      ['Turmeric Body Oil', 3500],
      ['Kojic Acid Soap', 1500],
      ['Turmeric Face Soap', 1000],
      ['12-Herb Hair Oil', 3000],
    ]);
  });

  it('offers the scrubs in Blue, Grey, Powder Blue and Black, sizes XS to XXL', () => {
    const scrubs = byId(3);
    expect(scrubs.hasColors).toBe(true);
    expect(scrubs.colors.map((c) => c.name)).toEqual(['Blue', 'Grey', 'Powder Blue', 'Black']);
    expect(scrubs.sizes).toEqual([...SIZES]);
    expect(SIZES).toEqual(['XS', 'S', 'M', 'L', 'XL', 'XXL']);
  });

  it('gives colours and sizes to the scrubs only', () => {
    for (const p of products.filter((x) => x.id !== 3)) {
      expect(p.hasColors, p.name).toBe(false);
      expect(p.colors, p.name).toEqual([]);
      expect(p.sizes, p.name).toEqual([]);
    }
  });

  it('gives the turmeric face soap 3 reviews and 42 likes', () => {
    const soap = byId(8);
    expect(soap.reviews).toHaveLength(3);
    expect(soap.likes).toBe(42);
  });

  it('puts every product in at least one main category, and the scrubs in scrub set and medical supplies', () => {
    expect(byId(3).mainCategories).toEqual(['scrub set', 'medical supplies']);
    expect(byId(9).mainCategories).toContain('haircare');
  });

  it('has at least two pictures per product, each with alt text and a file that exists', () => {
    for (const p of products) {
      expect(p.images.length, p.name).toBeGreaterThanOrEqual(2);
      const pictures = [...p.images, ...p.colors.flatMap((c) => (c.image ? [c.image] : []))];
      for (const img of pictures) {
        expect(img.alt.length, `${p.name} alt`).toBeGreaterThan(10);
        expect(existsSync(join(PRODUCTS_DIR, img.src)), img.src).toBe(true);
      }
    }
  });

  it('marks the turmeric body oil final sale (an opened oil cannot be resold) and no other product', () => {
    const index = loadCatalogueIndex();
    expect(products.filter((p) => p.finalSale).map((p) => p.name)).toEqual(['Turmeric Body Oil']);
    expect(isFinalSale(index, 6)).toBe(true);
    expect(isFinalSale(index, 1)).toBe(false);
    expect(isFinalSale(index, 99)).toBe(false);
  });

  it('has unique ids and SKUs', () => {
    expect(new Set(products.map((p) => p.sku)).size).toBe(products.length);
  });
});

describe('the product schema', () => {
  const schema = productSchema(z.string());
  /** A fresh copy of the first product file's frontmatter, to break one field at a time. */
  const valid = () => {
    const first = catalogue[0];
    if (!first) throw new Error('empty catalogue');
    return frontmatter(readFileSync(join(PRODUCTS_DIR, first.file), 'utf8')) as Record<string, unknown>;
  };

  it('accepts every catalogue file', () => {
    expect(catalogue).toHaveLength(9);
  });

  it('names the field that is wrong', () => {
    const bad = { ...valid(), price: 'thirty-five' };
    const result = schema.safeParse(bad);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path.join('.'))).toContain('price');
  });

  it('rejects a price with more than two decimals, a rating above 5 and colours without hasColors', () => {
    const issues = (data: Record<string, unknown>) => schema.safeParse(data).error?.issues.map((i) => i.path.join('.')) ?? [];
    expect(issues({ ...valid(), price: 35.001 })).toContain('price');
    expect(
      issues({
        ...valid(),
        reviews: [{ id: 'x', author: 'a@example.com', rating: 6, date: '2026-01-01', comment: 'ok', verified: true }],
      }),
    ).toContain('reviews.0.rating');
    expect(issues({ ...valid(), colors: [{ name: 'Blue', value: 'blue', hex: '#1f5fa8' }] })).toContain('colors');
  });

  it('takes a colour key of at most 40 characters, as stock counts, carts and orders store it', () => {
    const colour = (value: string) => ({ ...valid(), hasColors: true, colors: [{ name: 'Blue', value, hex: '#1f5fa8' }] });
    expect(schema.safeParse(colour('a'.repeat(40))).success).toBe(true);
    const long = schema.safeParse(colour('a'.repeat(41)));
    expect(long.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['colors.0.value', 'colour value must be a lowercase slug of at most 40 letters, digits and dashes'],
    ]);
  });

  it('takes finalSale as true or false, false when absent, and names the field otherwise', () => {
    const { finalSale: _, ...absent } = valid();
    expect(schema.parse(absent).finalSale).toBe(false);
    expect(schema.parse({ ...valid(), finalSale: true }).finalSale).toBe(true);
    for (const finalSale of ['yes', 1, null]) {
      expect(schema.safeParse({ ...valid(), finalSale }).error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
        ['finalSale', FINAL_SALE_MESSAGE],
      ]);
    }
  });

  it('requires at least two images', () => {
    const one = valid() as { images: unknown[] };
    const result = schema.safeParse({ ...one, images: one.images.slice(0, 1) });
    expect(result.error?.issues[0]?.message).toBe('every product needs at least two images');
  });
});
