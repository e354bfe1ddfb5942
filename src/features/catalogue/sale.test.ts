import { z } from 'astro/zod';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { catalogueIndex } from './catalogue';
import { productSchema, SALE_MESSAGES } from './product.schema';
import { priceAt, pricedAt, type Sale, saleChanges, saleRuns } from './sale';

const at = (iso: string) => new Date(iso);
const sale: Sale = { priceCents: 2999, startsAt: at('2026-12-09T14:00:00Z'), endsAt: at('2026-12-10T05:00:00Z') };

describe('when a sale runs', () => {
  it('from its start, included, to its end, excluded', () => {
    expect(saleRuns(sale, at('2026-12-09T13:59:59.999Z'))).toBe(false);
    expect(saleRuns(sale, at('2026-12-09T14:00:00Z'))).toBe(true);
    expect(saleRuns(sale, at('2026-12-10T04:59:59.999Z'))).toBe(true);
    expect(saleRuns(sale, at('2026-12-10T05:00:00Z'))).toBe(false);
    expect(saleRuns(null, at('2026-12-09T20:00:00Z'))).toBe(false);
  });

  it('is the same moment written in any zone: 9 am in New York is 2 pm in London and 14:00 UTC', () => {
    const ny = { startsAt: at('2026-12-09T09:00:00-05:00'), endsAt: at('2026-12-10T00:00:00-05:00') };
    expect(saleRuns(ny, at('2026-12-09T14:00:00+00:00'))).toBe(true);
    expect(saleRuns(ny, at('2026-12-09T13:59:00+00:00'))).toBe(false);
    // Midnight in New York is 5 am UTC, and the end is not in the sale.
    expect(saleRuns(ny, at('2026-12-10T05:00:00Z'))).toBe(false);
  });

  it('across a change of the clocks, by instants: from 9 am Saturday to 9 am Monday in New York is 47 hours in March', () => {
    const spring = { startsAt: at('2026-03-07T09:00:00-05:00'), endsAt: at('2026-03-09T09:00:00-04:00') };
    expect((spring.endsAt.getTime() - spring.startsAt.getTime()) / 3_600_000).toBe(47);
    expect(saleRuns(spring, at('2026-03-09T12:59:59Z'))).toBe(true);
    expect(saleRuns(spring, at('2026-03-09T13:00:00Z'))).toBe(false);
  });
});

describe('the price at a moment', () => {
  const product = { id: 6, priceCents: 3500, sale };

  it('is the sale price with the regular price as the one struck through while the sale runs, else the price', () => {
    expect(priceAt(product, at('2026-12-09T14:00:00Z'))).toEqual({ priceCents: 2999, wasCents: 3500 });
    expect(priceAt(product, at('2026-12-10T05:00:00Z'))).toEqual({ priceCents: 3500, wasCents: null });
    expect(priceAt({ priceCents: 3500 }, at('2026-12-09T20:00:00Z'))).toEqual({ priceCents: 3500, wasCents: null });
    expect(pricedAt(product, at('2026-12-09T20:00:00Z'))).toEqual({ ...product, priceCents: 2999, wasCents: 3500 });
  });

  it('is what the checkout’s index charges, when it is made for a moment', () => {
    const p = { ...product, name: 'Oil', category: 'Body Oil', sku: 'OIL', weight: 1, inStock: true, finalSale: false };
    const index = (iso: string) =>
      catalogueIndex([{ ...p, colors: [], sizes: [] }], () => '/oil.svg', at(iso)).get(6)?.priceCents;
    expect(index('2026-12-09T13:59:59Z')).toBe(3500);
    expect(index('2026-12-09T14:00:00Z')).toBe(2999);
    expect(index('2026-12-10T05:00:00Z')).toBe(3500);
  });
});

describe('when what is on sale changes', () => {
  const later = { startsAt: at('2026-12-10T00:00:00Z'), endsAt: at('2026-12-12T00:00:00Z') };
  const sales = [sale, later, null, undefined];

  it('lists every start and end strictly after a moment, in order, once each, and none once every sale is over', () => {
    expect(saleChanges(sales, at('2026-12-01T00:00:00Z'))).toEqual([sale.startsAt, later.startsAt, sale.endsAt, later.endsAt]);
    expect(saleChanges(sales, sale.startsAt)).toEqual([later.startsAt, sale.endsAt, later.endsAt]);
    expect(saleChanges([sale, { ...sale }], at('2026-12-01T00:00:00Z'))).toEqual([sale.startsAt, sale.endsAt]);
    expect(saleChanges(sales, at('2026-12-12T00:00:00Z'))).toEqual([]);
    expect(saleChanges([], at('2026-12-12T00:00:00Z'))).toEqual([]);
  });
});

describe('a sale in a product file', () => {
  const schema = productSchema(z.string());
  const file = yaml.load(`id: 6
name: Turmeric Body Oil
category: Body Oil
mainCategories: [skincare]
price: 35
description: An oil.
detailedDescription: A golden oil.
images: [{ src: ./images/a.svg, alt: A bottle }, { src: ./images/b.svg, alt: Its back }]
hasColors: false
usage: Massage in.
specifications: { size: 100 ml }
inStock: true
sku: TBO-100
weight: 0.5
likes: 3
benefits: [Soft skin]
ingredients: Jojoba oil.
`) as Record<string, unknown>;
  const issues = (data: Record<string, unknown>) =>
    schema.safeParse({ ...file, ...data }).error?.issues.map((i) => [i.path.join('.'), i.message]) ?? [];

  it('is none when absent or null', () => {
    expect(schema.parse(file).sale).toBeNull();
    expect(schema.parse({ ...file, sale: null }).sale).toBeNull();
  });

  it('is read with its offset, from text or from a YAML timestamp, its price in cents', () => {
    const text = schema.parse({
      ...file,
      sale: { price: 29.99, startsAt: '2026-12-09T09:00:00-05:00', endsAt: '2026-12-10T00:00:00-05:00' },
    });
    expect(text.sale).toEqual({ priceCents: 2999, startsAt: at('2026-12-09T14:00:00Z'), endsAt: at('2026-12-10T05:00:00Z') });
    const timestamps = yaml.load('sale: { price: 29.99, startsAt: 2026-12-09T14:00:00Z, endsAt: 2026-12-10T05:00:00Z }') as {
      sale: { startsAt: unknown };
    };
    expect(timestamps.sale.startsAt).toBeInstanceOf(Date);
    expect(schema.parse({ ...file, ...timestamps }).sale).toEqual(text.sale);
  });

  it('refuses a time without its offset (whose clock?), a sale price not below the price, and an end before the start', () => {
    const window = { startsAt: '2026-12-09T09:00:00-05:00', endsAt: '2026-12-10T00:00:00-05:00' };
    expect(issues({ sale: { ...window, price: 29.99, startsAt: '2026-12-09T09:00' } })).toEqual([
      ['sale.startsAt', SALE_MESSAGES.time('startsAt')],
    ]);
    expect(issues({ sale: { ...window, price: 35 } })).toEqual([['sale.price', SALE_MESSAGES.notLower(3500)]]);
    expect(issues({ sale: { ...window, price: 29.999 } })).toEqual([['sale.price', SALE_MESSAGES.decimals]]);
    expect(issues({ sale: { ...window, price: 0 } })).toEqual([['sale.price', SALE_MESSAGES.tooLow]]);
    expect(issues({ sale: { ...window, price: 20, endsAt: window.startsAt } })).toEqual([['sale.endsAt', SALE_MESSAGES.order]]);
    expect(issues({ sale: { ...window, price: 20, percent: 10 } })).toEqual([['sale', expect.stringMatching(/percent/)]]);
  });
});
