// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// A product's sale: a lower price from one instant (included) to another (excluded). Pure. A release's pages are
// priced for the moment they are rendered for (catalogue.server.ts), so they, their JSON-LD and what the checkout
// charges agree; the publisher renders them again, just ahead, for each moment a sale starts or ends (decisions 017
// and 019).

/** A sale as the catalogue holds it: its price in cents and when it runs. */
export interface Sale {
  priceCents: number;
  startsAt: Date;
  endsAt: Date;
}

/** When a sale runs, whatever else it says. */
export type SaleWindow = Pick<Sale, 'startsAt' | 'endsAt'>;

/** Whether the sale runs at `at`: from its start (included) to its end (excluded). */
export function saleRuns(sale: SaleWindow | null | undefined, at: Date): boolean {
  if (!sale) return false;
  const t = at.getTime();
  return sale.startsAt.getTime() <= t && t < sale.endsAt.getTime();
}

/** What a product sells for at `at`: `priceCents` is what the checkout charges then; `wasCents` the price a sale cuts. */
export interface PriceAt {
  priceCents: number;
  /** The regular price while a sale runs (shown struck through), else null. */
  wasCents: number | null;
}

/** The price of a product at `at`: its sale price while its sale runs, else its price. */
export function priceAt(product: { priceCents: number; sale?: Sale | null | undefined }, at: Date): PriceAt {
  const { sale } = product;
  return sale && saleRuns(sale, at)
    ? { priceCents: sale.priceCents, wasCents: product.priceCents }
    : { priceCents: product.priceCents, wasCents: null };
}

/**
 * The product as sold at `at`: `priceCents` becomes what is charged then, `wasCents` the regular price during a sale
 * (null otherwise). The product's own `sale` stays as it is (its end is the JSON-LD's priceValidUntil).
 */
export function pricedAt<P extends { priceCents: number; sale?: Sale | null | undefined }>(product: P, at: Date): P & PriceAt {
  return { ...product, ...priceAt(product, at) };
}

/** Every instant after `after` at which one of the sales starts or ends (what is on sale changes), in order. */
export function saleChanges(sales: readonly (SaleWindow | null | undefined)[], after: Date): Date[] {
  const edges = new Set<number>();
  for (const sale of sales)
    for (const edge of sale ? [sale.startsAt.getTime(), sale.endsAt.getTime()] : []) if (edge > after.getTime()) edges.add(edge);
  return [...edges].sort((a, b) => a - b).map((edge) => new Date(edge));
}

/** A time as a product file writes it: ISO 8601 with its offset from UTC ('2026-12-24T09:00:00-05:00', or Z). */
export const SALE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;
