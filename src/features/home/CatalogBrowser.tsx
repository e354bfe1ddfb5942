import { useStore } from '@nanostores/react';
import { useRef, useState } from 'react';
import { useEarlyTaps } from '@/lib/early-taps';
import {
  type CategoryFilter,
  categoryLabel,
  filterByCategory,
  formatPrice,
  PAGE_SIZE,
  type ProductCard,
} from '../catalog/catalog';
import { MAIN_CATEGORIES } from '../catalog/categories';
import { SIGN_UP_TO_SAVE } from '../favorites/favorites';
import '../favorites/favorites.css';
import { $favorites, toggleFavorite } from '../favorites/favorites.store';
import { shownLikes } from '../likes/likes';
import { $likes } from '../likes/likes.store';

interface Props {
  products: ProductCard[];
}

const FILTERS: CategoryFilter[] = ['all', ...MAIN_CATEGORIES];

/** Category chips, the product grid and 'Load More Products': filtering and paging happen in the page, without a reload. */
export default function CatalogBrowser({ products }: Props) {
  const [filter, setFilter] = useState<CategoryFilter>('all');
  const [shown, setShown] = useState(PAGE_SIZE);
  const gridRef = useRef<HTMLUListElement>(null);
  useEarlyTaps(gridRef);
  const likes = useStore($likes);
  const favorites = useStore($favorites).items;

  const matching = filterByCategory(products, filter);
  const visible = matching.slice(0, shown);

  function choose(next: CategoryFilter) {
    setFilter(next);
    setShown(PAGE_SIZE);
  }

  function loadMore() {
    const firstNew = shown;
    setShown((n) => n + PAGE_SIZE);
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
                  <span className="card-description">{p.description}</span>
                  <span className="card-meta">
                    <span className="card-price">{formatPrice(p.priceCents)}</span>
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
