import { z } from 'astro/zod';
import { describe, expect, it } from 'vitest';
import { productSchema } from '@/features/catalogue/product.schema';
import { productFields } from './keystatic.config';

describe('the editor’s form and the build’s schema', () => {
  it('have the same fields, so a field added to one is not forgotten in the other', () => {
    const schemaKeys = Object.keys(productSchema(z.string()).in.shape).sort();
    const formKeys = Object.keys(productFields)
      .filter((k) => k !== 'body')
      .sort();
    expect(formKeys).toEqual(schemaKeys);
  });

  it('have the same fields in colours and reviews', () => {
    const shape = productSchema(z.string()).in.shape;
    const colour = shape.colors.unwrap().element.shape;
    const review = shape.reviews.unwrap().element.shape;
    expect(Object.keys(productFields.colors.element.fields).sort()).toEqual(Object.keys(colour).sort());
    expect(Object.keys(productFields.reviews.element.fields).sort()).toEqual(Object.keys(review).sort());
  });
});
