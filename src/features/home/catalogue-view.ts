// What the home page's grid shows (category and how many cards), as a shareable address: `/?category=haircare` and
// `/?category=skincare&shown=12`. The page is pre-rendered, so the browser reads these; kept in plain TS for Vitest.
import { type CategoryFilter, PAGE_SIZE } from '../catalogue/catalogue';
import { MAIN_CATEGORIES } from '../catalogue/categories';

export interface CatalogView {
  filter: CategoryFilter;
  /** How many cards are shown: a whole number of pages ('Load More Products' adds one). */
  shown: number;
}

export const DEFAULT_VIEW: CatalogView = { filter: 'all', shown: PAGE_SIZE };

/** A category as the address writes it: 'medical supplies' -> 'medical-supplies'. */
export function categorySlug(filter: CategoryFilter): string {
  return filter.replace(/ /g, '-');
}

/**
 * The view an address asks for: an unknown category is All, and `shown` is rounded up to whole pages, from one page
 * to as many as `count(filter)` products fill. Anything unreadable gives the default view.
 */
export function readCatalogView(search: string, count: (filter: CategoryFilter) => number): CatalogView {
  const params = new URLSearchParams(search);
  const slug = params.get('category');
  const filter = MAIN_CATEGORIES.find((c) => categorySlug(c) === slug) ?? 'all';
  const pages = Math.max(1, Math.ceil(count(filter) / PAGE_SIZE));
  const asked = /^\d{1,4}$/.test(params.get('shown') ?? '') ? Math.ceil(Number(params.get('shown')) / PAGE_SIZE) : 1;
  return { filter, shown: Math.min(Math.max(asked, 1), pages) * PAGE_SIZE };
}

/** The query string for a view, keeping the address's other parameters; the default view adds nothing. */
export function catalogSearch(search: string, view: CatalogView): string {
  const params = new URLSearchParams(search);
  if (view.filter === 'all') params.delete('category');
  else params.set('category', categorySlug(view.filter));
  if (view.shown > PAGE_SIZE) params.set('shown', String(view.shown));
  else params.delete('shown');
  const query = params.toString();
  return query ? `?${query}` : '';
}
