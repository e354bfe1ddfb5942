import { useStore } from '@nanostores/react';
import { useEffect, useRef, useState } from 'react';
import { useEarlyTaps } from '@/lib/early-taps';
import {
  type CategoryFilter,
  categoryLabel,
  filterByCategory,
  OUT_OF_STOCK,
  PAGE_SIZE,
  type ProductCard,
} from '../catalogue/catalogue';
import { MAIN_CATEGORIES } from '../catalogue/categories';
import Price from '../catalogue/Price';
import { SIGN_UP_TO_SAVE } from '../favorites/favorites';
import './catalogue.css';
import '../favorites/favorites.css';
import { $favorites, toggleFavorite } from '../favorites/favorites.store';
import { shownLikes } from '../likes/likes';
import { $likes } from '../likes/likes.store';
import { $stock } from '../stock/stock.store';
import { type CatalogView, catalogSearch, DEFAULT_VIEW, readCatalogView } from './catalogue-view';

interface Props {
  products: ProductCard[];
}

const FILTERS: CategoryFilter[] = ['all', ...MAIN_CATEGORIES];

/** Where the page was scrolled when the shopper left it, kept in the page's history entry for Back. */
const SCROLL_KEY = 'catalogScrollY';

/**
 * Category chips, the product grid and 'Load More Products': filtering and paging happen in the page, without a
 * reload. The view is also in the address (catalogue-view.ts), so a link can share it and Back comes back to it.
 */
export default function CatalogueBrowser({ products }: Props) {
  // The build renders the default view; the address's own is taken over once the island is live.
  const [{ filter, shown }, setView] = useState<CatalogView>(DEFAULT_VIEW);
  const [restored, setRestored] = useState(false);
  const gridRef = useRef<HTMLUListElement>(null);
  // A tap held while the page loaded acts on the view the shopper sees, so it waits for the address's.
  useEarlyTaps(gridRef, restored);
  const likes = useStore($likes);
  const favorites = useStore($favorites).items;
  // Counts change by the minute, the page is built once: a product nobody can buy any more says so once the shop answers.
  const { soldOut } = useStore($stock);

  const matching = filterByCategory(products, filter);
  const visible = matching.slice(0, shown);

  useEffect(() => {
    setView(readCatalogView(window.location.search, (f) => filterByCategory(products, f).length));
    setRestored(true);
    // When Back loads the page again, the browser puts the scroll position back before this island has grown the
    // grid to what it was, and lands too high or at the footer: remember it on leaving, and put it back below.
    const remember = () => history.replaceState({ ...history.state, [SCROLL_KEY]: window.scrollY }, '');
    window.addEventListener('pagehide', remember);
    return () => window.removeEventListener('pagehide', remember);
  }, [products]);

  useEffect(() => {
    const y: unknown = history.state?.[SCROLL_KEY];
    if (restored && typeof y === 'number') window.scrollTo(0, y);
  }, [restored]);

  /** Shows a view and writes it into the address: replaced, not pushed, so Back still leaves the page. */
  function show(view: CatalogView) {
    setView(view);
    const { pathname, search, hash } = window.location;
    history.replaceState(history.state, '', `${pathname}${catalogSearch(search, view)}${hash}`);
  }

  function choose(next: CategoryFilter) {
    show({ filter: next, shown: PAGE_SIZE });
  }

  function loadMore() {
    const firstNew = shown;
    show({ filter, shown: shown + PAGE_SIZE });
    // Keyboard users land on the first card that just appeared instead of losing their place.
    requestAnimationFrame(() => {
      gridRef.current?.querySelectorAll<HTMLAnchorElement>('a.card-link')[firstNew]?.focus();
    });
  }

  return (
    <div className="catalog">
      <fieldset className="chips">
        <legend className="visually-hidden">Filter by category</legend>
        {FILTERS.map((f) => (
          <button
            key={f}
            type="button"
            className="chip"
            aria-pressed={filter === f}
            onClick={() => choose(f)}
            data-pending-action={`category-${f}`}
          >
            {categoryLabel(f)}
          </button>
        ))}
      </fieldset>
      <p className="catalog-status" aria-live="polite">
        {matching.length === 0
          ? `Nothing in ${categoryLabel(filter)} yet: new pieces are on their way.`
          : `Showing ${visible.length} of ${matching.length} products`}
      </p>
      <ul className="product-grid" ref={gridRef}>
        {visible.map((p, i) => {
          const saved = favorites.some((f) => f.productId === p.id);
          return (
            <li key={p.id} className="product-card">
              <a className="card-link" href={p.href}>
                <img
                  src={p.image.src}
                  width={p.image.width}
                  height={p.image.height}
                  alt={p.image.alt}
                  loading={i < 2 ? 'eager' : 'lazy'}
                  fetchPriority={i === 0 ? 'high' : 'auto'}
                  decoding="async"
                />
                <span className="card-body">
                  <span className="card-category">{p.category}</span>
                  <span className="card-name">{p.name}</span>
                  {(!p.inStock || soldOut.includes(p.id)) && <span className="card-stock">{OUT_OF_STOCK}</span>}
                  <span className="card-description">{p.description}</span>
                  <span className="card-meta">
                    <span className="card-price">
                      <Price priceCents={p.priceCents} wasCents={p.wasCents} />
                    </span>
                    <span className="card-likes">
                      <span aria-hidden="true">♥</span> {shownLikes(p.likes, likes, p.id)}
                      <span className="visually-hidden"> likes</span>
                    </span>
                  </span>
                </span>
              </a>
              <button
                type="button"
                className="card-heart"
                aria-label={saved ? `Remove ${p.name} from Wishlist` : `Add ${p.name} to Wishlist`}
                onClick={() => toggleFavorite(p.id, SIGN_UP_TO_SAVE)}
                data-pending-action={`favorite-${p.id}`}
              >
                <span aria-hidden="true">{saved ? '♥' : '♡'}</span>
              </button>
            </li>
          );
        })}
      </ul>
      {visible.length < matching.length && (
        <div className="load-more">
          <button type="button" className="btn btn-outline" onClick={loadMore} data-pending-action="load-more">
            Load More Products
          </button>
        </div>
      )}
    </div>
  );
}
