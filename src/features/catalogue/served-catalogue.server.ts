// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// The catalogue this server sells from (decision 019): the release it serves, set by its publisher. Pages, the cart,
// the checkout and the admin read products through getProducts (catalogue.server.ts), which asks here first. A
// release being rendered (for a moment to come, or before it is served) is read instead by the requests that render it
// (AsyncLocalStorage: withCatalogue).

import type { CollectionEntry } from 'astro:content';
import { AsyncLocalStorage } from 'node:async_hooks';

/** A product as its file says, sale window included (priced for a moment by catalogue.server.ts). */
export type ProductData = CollectionEntry<'products'>['data'];

/** A catalogue as a release holds it. */
export interface CatalogueRelease {
  /** Names the release (a digest of the code and the catalogue). */
  key: string;
  /** Every product, ordered by id. */
  products: readonly ProductData[];
}

/** The catalogue a request reads, and the moment it prices for (null: when it asks). */
export interface CatalogueInUse {
  release: CatalogueRelease;
  at: Date | null;
}

const storage = new AsyncLocalStorage<CatalogueInUse>();
let served: CatalogueRelease | null = null;

/** Serves `release` to every request that starts from now on (requests under way keep theirs). */
export function serveCatalogue(release: CatalogueRelease | null): void {
  served = release;
}

/** The release new requests get, or null (the dev server and tests: the build's own catalogue). */
export function servedCatalogue(): CatalogueRelease | null {
  return served;
}

/** Runs `fn` reading `inUse` (a release being rendered, priced for its moment) instead of the catalogue served. */
export function withCatalogue<T>(inUse: CatalogueInUse, fn: () => T): T {
  return storage.run(inUse, fn);
}

/** The catalogue the code running now reads: its request's, else the one served, else null. */
export function catalogueInUse(): CatalogueInUse | null {
  return storage.getStore() ?? (served ? { release: served, at: null } : null);
}
