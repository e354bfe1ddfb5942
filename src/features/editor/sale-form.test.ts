import { readFileSync } from 'node:fs';
import { z } from 'astro/zod';
import { describe, expect, it } from 'vitest';
import { productSchema } from '@/features/catalogue/product.schema';
import { editProductText, productData, summariseChange } from './product-text';
import { NO_SALE, SALE_WORDS, saleFromInputs, saleInputs } from './sale-form';

const NY = 'America/New_York';
const oil = readFileSync('content/products/06-turmeric-body-oil.md', 'utf8');

describe('a sale in the product form', () => {
  it('shows a saved sale on the shop’s clock, whether the file wrote it with an offset or as a UTC timestamp', () => {
    expect(
      saleInputs({ price: 29.99, startsAt: '2026-12-09T09:00:00-05:00', endsAt: new Date('2026-12-10T05:00:00Z') }, NY),
    ).toEqual({
      price: '29.99',
      startsAt: '2026-12-09T09:00',
      endsAt: '2026-12-10T00:00',
    });
    expect(saleInputs(undefined, NY)).toEqual(NO_SALE);
  });

  it('sends nothing for a sale when the three are empty, and the sale with the shop’s offsets otherwise', () => {
    expect(saleFromInputs(NO_SALE, NY)).toEqual({ sale: null });
    expect(saleFromInputs({ price: '29.99', startsAt: '2026-12-09T09:00', endsAt: '2026-12-10T00:00:30' }, NY)).toEqual({
      sale: { price: 29.99, startsAt: '2026-12-09T09:00:00-05:00', endsAt: '2026-12-10T00:00:30-05:00' },
    });
    // Across the change of the clocks: 2:30 am on the day New York skips it is 3:30 am EDT.
    expect(saleFromInputs({ price: '20', startsAt: '2026-03-08T02:30', endsAt: '2026-03-09T00:00' }, NY)).toEqual({
      sale: { price: 20, startsAt: '2026-03-08T03:30:00-04:00', endsAt: '2026-03-09T00:00:00-04:00' },
    });
  });

  it('names each sale field it cannot read, with what to do, beside its field', () => {
    const whole = { price: '29.99', startsAt: '2026-12-09T09:00', endsAt: '2026-12-10T00:00' };
    expect(saleFromInputs({ ...whole, price: 'cheap' }, NY)).toEqual({
      problems: [{ field: 'sale.price', message: SALE_WORDS.price }],
    });
    expect(saleFromInputs({ ...whole, startsAt: '', endsAt: '' }, NY)).toEqual({
      problems: [
        { field: 'sale.startsAt', message: 'Choose the date and time the sale starts.' },
        { field: 'sale.endsAt', message: 'Choose the date and time the sale ends.' },
      ],
    });
    expect(saleFromInputs({ ...whole, endsAt: '2026-12-09T09:00' }, NY)).toEqual({
      problems: [{ field: 'sale.endsAt', message: 'The sale must end after it starts.' }],
    });
  });
});

describe('a sale in the product file', () => {
  const sale = { price: 29.99, startsAt: '2026-12-09T09:00:00-05:00', endsAt: '2026-12-10T00:00:00-05:00' };

  it('is added as a block the build reads back, and taken out again to the very same file', () => {
    const withSale = editProductText(oil, { sale });
    expect(withSale).toContain('sale:\n  price: 29.99\n  startsAt: "2026-12-09T09:00:00-05:00"\n');
    const product = productSchema(z.string()).parse(productData(withSale));
    expect(product.sale).toEqual({
      priceCents: 2999,
      startsAt: new Date('2026-12-09T14:00:00Z'),
      endsAt: new Date('2026-12-10T05:00:00Z'),
    });
    expect(editProductText(withSale, { sale: null })).toBe(oil);
    expect(editProductText(oil, { sale: null })).toBe(oil);
  });

  it('is said in the history in the shop’s words', () => {
    const withSale = editProductText(oil, { sale });
    expect(summariseChange(oil, withSale)).toBe('sale $29.99 from Dec 9, 2026, 9:00 AM to Dec 10, 2026, 12:00 AM');
    const later = editProductText(withSale, { sale: { ...sale, price: 25 } });
    expect(summariseChange(withSale, later)).toBe(
      'sale $29.99 from Dec 9, 2026, 9:00 AM to Dec 10, 2026, 12:00 AM → $25.00 from Dec 9, 2026, 9:00 AM to Dec 10, 2026, 12:00 AM',
    );
    expect(summariseChange(withSale, oil)).toBe('sale removed (was $29.99 from Dec 9, 2026, 9:00 AM to Dec 10, 2026, 12:00 AM)');
  });
});
