import { describe, expect, it } from 'vitest';
import type { CategoryFilter } from '../catalogue/catalogue';
import { catalogSearch, categorySlug, DEFAULT_VIEW, readCatalogView } from './catalogue-view';

// The catalogue as the home page has it: 9 products, 7 of them skincare, 1 haircare, none in accessories.
const COUNTS: Record<CategoryFilter, number> = {
  all: 9,
  skincare: 7,
  haircare: 1,
  'scrub set': 1,
  'medical supplies': 1,
  accessories: 0,
};
const read = (search: string) => readCatalogView(search, (f) => COUNTS[f]);

describe('the home grid’s address', () => {
  it('names categories with dashes, and reads them back', () => {
    expect(categorySlug('medical supplies')).toBe('medical-supplies');
    expect(read('?category=medical-supplies')).toEqual({ filter: 'medical supplies', shown: 6 });
    expect(read('?category=haircare')).toEqual({ filter: 'haircare', shown: 6 });
    expect(read('?category=accessories')).toEqual({ filter: 'accessories', shown: 6 });
  });

  it('is the default view without parameters, or with ones it cannot read', () => {
    for (const search of ['', '?', '?category=', '?category=Skincare', '?category=medical%20supplies', '?shown=abc'])
      expect(read(search), search).toEqual(DEFAULT_VIEW);
    expect(read('?shown=-6')).toEqual(DEFAULT_VIEW);
    expect(read('?shown=99999999')).toEqual(DEFAULT_VIEW);
  });

  it('shows whole pages, never more than the category fills', () => {
    expect(read('?shown=12')).toEqual({ filter: 'all', shown: 12 });
    expect(read('?shown=7')).toEqual({ filter: 'all', shown: 12 });
    expect(read('?shown=0')).toEqual({ filter: 'all', shown: 6 });
    expect(read('?shown=60')).toEqual({ filter: 'all', shown: 12 });
    expect(read('?category=skincare&shown=12')).toEqual({ filter: 'skincare', shown: 12 });
    expect(read('?category=haircare&shown=12')).toEqual({ filter: 'haircare', shown: 6 });
  });

  it('writes only what differs from the default, and keeps other parameters', () => {
    expect(catalogSearch('', DEFAULT_VIEW)).toBe('');
    expect(catalogSearch('', { filter: 'scrub set', shown: 6 })).toBe('?category=scrub-set');
    expect(catalogSearch('?category=haircare', { filter: 'skincare', shown: 12 })).toBe('?category=skincare&shown=12');
    expect(catalogSearch('?category=skincare&shown=12', DEFAULT_VIEW)).toBe('');
    expect(catalogSearch('?utm_source=mail', { filter: 'haircare', shown: 6 })).toBe('?utm_source=mail&category=haircare');
  });

  it('reads back what it writes', () => {
    for (const filter of Object.keys(COUNTS) as CategoryFilter[])
      for (const shown of [6, 12]) {
        const view = read(catalogSearch('', { filter, shown }));
        expect(view.filter).toBe(filter);
        expect(view.shown).toBe(COUNTS[filter] > 6 ? shown : 6);
      }
  });
});
