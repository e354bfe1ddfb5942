// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import { atom, onMount } from 'nanostores';
import { api } from '@/lib/api';
import type { StockAnswer } from './stock';

/**
 * What can still be bought of the counted items (GET /api/stock), for the grid, the product page and the cart. The
 * pages are built once, so this is how a count the owner set, or a sale, reaches them. Asked for when an island first
 * shows it, and again by loadStock (the cart drawer, as it opens and after a checkout was refused).
 */
export const $stock = atom<StockAnswer>({ available: {}, soldOut: [] });

let loading: Promise<void> | undefined;

/** Asks the shop again (one request at a time: a second call while one is on its way waits for that one). */
export const loadStock = () =>
  (loading ??= api<StockAnswer>('/api/stock').then((r) => {
    loading = undefined;
    if (r.ok) $stock.set(r.data);
  }));

onMount($stock, () => {
  loadStock();
});
