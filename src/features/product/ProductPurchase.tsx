import { useStore } from '@nanostores/react';
import { useEffect, useRef, useState } from 'react';
import { useEarlyTaps } from '@/lib/early-taps';
import { cartId, MAX_QUANTITY, onlyLeft, QUANTITY_CHOICES } from '../cart/cart';
import { addToCart } from '../cart/cart.store';
import { OUT_OF_STOCK } from '../catalogue/catalogue';
import { LOGIN_TO_SAVE } from '../favorites/favorites';
import { $favorites, toggleFavorite } from '../favorites/favorites.store';
import { $stock } from '../stock/stock.store';
import { notify } from '../toasts/toast.store';
import { $selectedColor } from './product.store';

interface Props {
  productId: number;
  name: string;
  colors: { name: string; value: string; hex: string }[];
  sizes: string[];
  inStock: boolean;
}

/** Colour swatches, size, quantity 1 to 5, Add to Cart and the wishlist button. */
export default function ProductPurchase({ productId, name, colors, sizes, inStock }: Props) {
  const color = useStore($selectedColor);
  const saved = useStore($favorites).items.some((f) => f.productId === productId);
  const [size, setSize] = useState<string | null>(null);
  const [quantity, setQuantity] = useState(1);
  const [problem, setProblem] = useState<string | null>(null);
  const colorName = colors.find((c) => c.value === color)?.name;
  // What can still be bought of the product, or of the colour and size chosen (undefined: not counted, unlimited).
  const stock = useStore($stock);
  const left = stock.available[cartId(productId, color, size)];
  const buyable = inStock && !stock.soldOut.includes(productId) && left !== 0;
  const root = useRef<HTMLDivElement>(null);
  const [tookOver, setTookOver] = useState(false);

  // Choices made before this island hydrated are in the page's form controls (React leaves them alone) but not in
  // its state: take them over, so a quick shopper on a slow phone does not lose them.
  useEffect(() => {
    const form = root.current;
    if (!form) return;
    const checked = (name: string) => form.querySelector<HTMLInputElement>(`input[name="${name}"]:checked`)?.value;
    const early = { color: checked('colour'), size: checked('size'), quantity: Number(form.querySelector('select')?.value) };
    if (early.color && !$selectedColor.get()) $selectedColor.set(early.color);
    if (early.size) setSize(early.size);
    if (early.quantity > 1) setQuantity(early.quantity);
    setTookOver(true);
  }, []);
  // A tap on Add to Cart held while the page loaded counts with those choices, so it waits for them.
  useEarlyTaps(root, tookOver);

  function add() {
    if (colors.length > 0 && !color) return setProblem('Please choose a colour.');
    if (sizes.length > 0 && !size) return setProblem('Please choose a size.');
    setProblem(null);
    const added = addToCart({ productId, quantity, selectedColor: color, selectedSize: size }, left);
    if (added === 0) return;
    notify.success(`Added ${added} × ${name}${colorName ? ` (${colorName}${size ? `, ${size}` : ''})` : ''} to your cart`);
  }

  return (
    <div className="purchase" ref={root}>
      {colors.length > 0 && (
        <fieldset className="option-group">
          <legend>Colour{colorName ? <span className="option-chosen">: {colorName}</span> : null}</legend>
          <div className="swatches">
            {colors.map((c) => (
              <label key={c.value} className="swatch" title={c.name}>
                <input
                  type="radio"
                  name="colour"
                  value={c.value}
                  checked={color === c.value}
                  onChange={() => $selectedColor.set(c.value)}
                />
                {/* An SVG fill, not a style attribute: the CSP allows no inline styles. */}
                <svg className="swatch-dot" viewBox="0 0 44 44" aria-hidden="true">
                  <circle cx="22" cy="22" r="22" fill={c.hex} />
                </svg>
                <span className="visually-hidden">{c.name}</span>
              </label>
            ))}
          </div>
        </fieldset>
      )}
      {sizes.length > 0 && (
        <fieldset className="option-group">
          <legend>Size{size ? <span className="option-chosen">: {size}</span> : null}</legend>
          <div className="sizes">
            {sizes.map((s) => (
              <label key={s} className="size-pill">
                <input type="radio" name="size" value={s} checked={size === s} onChange={() => setSize(s)} />
                <span>{s}</span>
              </label>
            ))}
          </div>
        </fieldset>
      )}
      <div className="field quantity">
        <label htmlFor={`qty-${productId}`}>
          Quantity
          {buyable && left !== undefined && left <= MAX_QUANTITY && <span className="stock-left"> · {onlyLeft(left)}</span>}
        </label>
        <select id={`qty-${productId}`} value={quantity} onChange={(e) => setQuantity(Number(e.target.value))}>
          {QUANTITY_CHOICES.map((q) => (
            <option key={q} value={q}>
              {q}
            </option>
          ))}
        </select>
      </div>
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
      <div className="purchase-actions">
        <button type="button" className="btn" onClick={add} disabled={!buyable} data-pending-action="add-to-cart">
          {buyable ? 'Add to Cart' : OUT_OF_STOCK}
        </button>
        <button
          type="button"
          className="btn btn-outline"
          onClick={() => toggleFavorite(productId, LOGIN_TO_SAVE)}
          data-pending-action="wishlist"
        >
          {saved ? 'Remove from Wishlist' : 'Add to Wishlist'}
        </button>
      </div>
    </div>
  );
}
