import { describe, expect, it } from 'vitest';
import { loadCatalogueIndex } from '../../../tests/unit/load-catalogue';
import { cartAction } from './favorites';

const catalogue = loadCatalogueIndex();

describe('how a favorite goes in the cart from the wishlist', () => {
  it('straight away for a product without colours or sizes', () => {
    expect(cartAction(catalogue.get(1))).toBe('add');
    expect(cartAction({ inStock: true, colors: [], sizes: [] })).toBe('add');
  });

  it('after choosing on the product page when it has colours or sizes (the scrubs)', () => {
    expect(cartAction(catalogue.get(3))).toBe('choose');
    expect(cartAction({ inStock: true, colors: [], sizes: ['M'] })).toBe('choose');
    expect(cartAction({ inStock: true, colors: ['blue'], sizes: [] })).toBe('choose');
  });

  it('not at all when it is out of stock (said so) or has left the catalogue', () => {
    expect(cartAction({ inStock: false, colors: [], sizes: [] })).toBe('out-of-stock');
    expect(cartAction({ inStock: false, colors: ['blue'], sizes: ['M'] })).toBe('out-of-stock');
    expect(cartAction(catalogue.get(999))).toBe('unavailable');
  });
});
