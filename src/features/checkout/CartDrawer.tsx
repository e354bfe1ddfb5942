import { useStore } from '@nanostores/react';
import { lazy, type MouseEvent, Suspense, useEffect, useId, useMemo, useRef, useState } from 'react';
import { estimatedShippingCents, orderTotals, parcelWeightLb } from '@/lib/pricing';
import { type CartLine, type CartProduct, MAX_QUANTITY, onlyLeft } from '../cart/cart';
import { CART_MESSAGES, setQuantity, subtotal, withoutUnsold } from '../cart/cart.rules';
import { $cart } from '../cart/cart.store';
import { formatPrice } from '../catalogue/catalogue';
import { availableFor, withinStock } from '../stock/stock';
import { $stock, loadStock } from '../stock/stock.store';
import { notify } from '../toasts/toast.store';
import type { CheckoutStage } from './Checkout';
import DiscountField, { DiscountRows, useDiscount } from './DiscountField';
import { $discountCode, summaryDiscount } from './discount.store';
import { $placedOrder, PLACED_MESSAGES } from './placed-order.store';

// The checkout's code loads when the shopper presses Checkout: pages that never check out never download it.
const Checkout = lazy(() => import('./Checkout'));

type Stage = 'cart' | CheckoutStage;
/** Where the back arrow leads from each stage (product spec: payment → address → cart). */
const PREVIOUS: Record<CheckoutStage, Stage> = { address: 'cart', payment: 'address' };

export interface CartDrawerProps {
  /** 0: shut. Any other number: open; a new number opens it again should it have closed meanwhile. */
  opening: number;
  products: readonly CartProduct[];
  onClose: () => void;
}

/** "Blue, M": the chosen colour's name and the size, or null for a product without variants. */
function variantLabel(line: CartLine, product: CartProduct): string | null {
  const parts = [line.selectedColor && (product.colorNames[line.selectedColor] ?? line.selectedColor), line.selectedSize];
  return parts.filter(Boolean).join(', ') || null;
}

/** "Clinical Scrubs (Blue, M)": the line as the shop names it. */
function lineLabel(line: CartLine, product: CartProduct | undefined): string {
  if (!product) return 'An item';
  const variant = variantLabel(line, product);
  return variant ? `${product.name} (${variant})` : product.name;
}

/**
 * The cart drawer: the lines with their pictures, quantities and prices (the catalogue's), and the subtotal. A native
 * modal <dialog>: the page behind is inert, so focus stays inside; Escape closes it; the opener gets focus back.
 */
export default function CartDrawer({ opening, products, onClose }: CartDrawerProps) {
  const lines = useStore($cart);
  const placed = useStore($placedOrder);
  const dialog = useRef<HTMLDialogElement>(null);
  const title = useRef<HTMLHeadingElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const catalogue = useMemo(() => new Map(products.map((p) => [p.id, p])), [products]);
  const [stage, setStage] = useState<Stage>('cart');
  // An emptied cart has nothing to check out: back to the cart's own view.
  const current: Stage = lines.length === 0 ? 'cart' : stage;
  const stock = useStore($stock);

  // What can still be bought, asked again each time the drawer opens (the page may have been open for a while).
  useEffect(() => {
    if (opening) loadStock();
  }, [opening]);

  // The cart never holds more than can be bought: a line wanting more holds what there is, one nobody can buy leaves,
  // and the shopper is told. Only in the cart's own view: the checkout's lines do not change under the shopper's feet.
  useEffect(() => {
    if (!opening || current !== 'cart') return;
    const { lines: kept, notices } = withinStock($cart.get(), stock, (l) => lineLabel(l, catalogue.get(l.productId)));
    if (notices.length === 0) return;
    $cart.set(kept);
    for (const notice of notices) notify.info(notice);
  }, [opening, current, stock, catalogue]);

  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (opening && !d.open) {
      d.showModal();
      // The dialog would focus its first focusable element, which is the title (focusable for the case below).
      closeButton.current?.focus();
      // A product that has left the catalogue since it was added has nothing to show or sell: it leaves the cart.
      const { known, notice } = withoutUnsold($cart.get(), catalogue);
      if (notice) {
        $cart.set(known);
        notify.info(notice);
      }
    }
    if (!opening && d.open) d.close();
  }, [opening, catalogue]);

  // What the server will charge, as far as the cart can tell: shipping by the parcel's weight until the address is
  // known, and the discounts the server answered for this cart (a code's, the automatic offer's).
  const weight = parcelWeightLb(lines, (id) => catalogue.get(id)?.weight);
  const subtotalCents = subtotal(lines, catalogue);
  const { discount, pending } = useDiscount(lines, subtotalCents, Boolean(opening));
  // While the server works out this cart's discount, tax and total wait for it rather than show them without it.
  const shown = (cents: number) => (pending ? '…' : formatPrice(cents));
  const discountCode = useStore($discountCode);
  const totals = orderTotals(subtotalCents, estimatedShippingCents(weight), discount ?? undefined);

  function change(line: CartLine, quantity: number, label: string) {
    const before = $cart.get();
    $cart.set(setQuantity(before, line.cartId, quantity));
    if (quantity > 0) return;
    // The line's buttons go with it: focus moves to the drawer's title rather than being lost. The shopper is told,
    // and can take it back (with its place in the cart) as long as the cart has not changed since.
    title.current?.focus();
    const after = $cart.get();
    notify.info(CART_MESSAGES.removed(label), {
      action: { label: 'Undo', run: () => $cart.get() === after && $cart.set(before) },
    });
  }

  // The close event comes a moment after the dialog closed: one that finds it open again (reopened in between) is old.
  function onClosed() {
    if (!dialog.current?.open) onClose();
  }

  // A click on the backdrop lands on the <dialog> itself (its content fills it): it closes the drawer.
  function onBackdrop(e: MouseEvent<HTMLDialogElement>) {
    if (e.target === e.currentTarget) onClose();
  }

  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the backdrop click is a pointer shortcut; Escape and the Close button do the same from the keyboard.
    <dialog ref={dialog} className="cart-drawer" aria-labelledby={titleId} onClose={onClosed} onClick={onBackdrop}>
      <div className="cart-drawer-inner">
        <div className="cart-drawer-head">
          {current !== 'cart' && (
            <button type="button" className="auth-close checkout-back" onClick={() => setStage(PREVIOUS[current])}>
              <span aria-hidden="true">←</span>
              <span className="visually-hidden">{current === 'payment' ? 'Back to the address' : 'Back to the cart'}</span>
            </button>
          )}
          {/* The cart's heading and the checkout's are two headings (a Back button comes before the second): one that
              changed its words and moved across the drawer would be a layout shift. */}
          <h2 key={current === 'cart' ? 'cart' : 'checkout'} id={titleId} ref={title} tabIndex={-1}>
            {current === 'cart' ? 'Your cart' : 'Checkout'}
          </h2>
          <button ref={closeButton} type="button" className="auth-close" onClick={onClose}>
            <span aria-hidden="true">×</span>
            <span className="visually-hidden">Close cart</span>
          </button>
        </div>
        {current !== 'cart' ? (
          <Suspense fallback={<p className="cart-note">Loading checkout…</p>}>
            <Checkout
              stage={current}
              onStage={setStage}
              lines={lines}
              catalogue={catalogue}
              discount={discount}
              discountCode={discountCode}
            />
          </Suspense>
        ) : lines.length === 0 && placed ? (
          // The order just placed: its number, as the e-mail, the order page and the history name it, and its page.
          <div className="cart-empty cart-placed" role="status">
            <p className="cart-placed-title">
              Thank you! Your order <span className="cart-placed-number">{placed.number}</span> is placed.
            </p>
            <p>{PLACED_MESSAGES.email}</p>
            {placed.url && (
              <a className="btn" href={placed.url}>
                {PLACED_MESSAGES.viewOrder}
              </a>
            )}
          </div>
        ) : lines.length === 0 ? (
          <div className="cart-empty">
            <p>{CART_MESSAGES.empty}</p>
            <button type="button" className="btn btn-outline" onClick={onClose}>
              Continue shopping
            </button>
          </div>
        ) : (
          <>
            <ul className="cart-lines">
              {lines.map((line) => {
                const product = catalogue.get(line.productId);
                if (!product) return null;
                const variant = variantLabel(line, product);
                const label = lineLabel(line, product);
                const image = (line.selectedColor && product.colorImages[line.selectedColor]) || product.image;
                // A counted item with few left says so, and its line grows no further than there are.
                const left = availableFor(stock, line);
                const most = Math.min(MAX_QUANTITY, left ?? MAX_QUANTITY);
                const atMost = line.quantity >= most;
                const mostMessage = most < MAX_QUANTITY ? onlyLeft(most) : CART_MESSAGES.maxQuantity;
                return (
                  <li key={line.cartId} className="cart-line" data-testid="cart-line">
                    <img className="cart-line-image" src={image} alt="" width="72" height="72" loading="lazy" />
                    <div className="cart-line-info">
                      <a className="cart-line-name" href={product.href}>
                        {product.name}
                      </a>
                      {variant && <p className="cart-line-variant">{variant}</p>}
                      <p className="cart-line-price">{formatPrice(product.priceCents)} each</p>
                      {left !== undefined && left <= MAX_QUANTITY && (
                        <p className="cart-line-stock" data-testid="line-stock">
                          {onlyLeft(left)}
                        </p>
                      )}
                    </div>
                    <p className="cart-line-total">{formatPrice(product.priceCents * line.quantity)}</p>
                    <fieldset className="cart-line-quantity">
                      <legend className="visually-hidden">Quantity of {label}</legend>
                      <button type="button" onClick={() => change(line, line.quantity - 1, label)}>
                        <span aria-hidden="true">−</span>
                        <span className="visually-hidden">Decrease quantity of {label}</span>
                      </button>
                      <span className="cart-line-count" data-testid="line-quantity" aria-live="polite">
                        {line.quantity}
                      </span>
                      {/* aria-disabled rather than disabled: the button keeps focus when the line reaches the maximum. */}
                      <button
                        type="button"
                        aria-disabled={atMost}
                        title={atMost ? mostMessage : undefined}
                        onClick={() => (atMost ? notify.info(mostMessage) : change(line, line.quantity + 1, label))}
                      >
                        <span aria-hidden="true">+</span>
                        <span className="visually-hidden">Increase quantity of {label}</span>
                      </button>
                    </fieldset>
                    <button type="button" className="link-button cart-line-remove" onClick={() => change(line, 0, label)}>
                      Remove<span className="visually-hidden"> {label}</span>
                    </button>
                  </li>
                );
              })}
            </ul>
            <div className="cart-summary" aria-busy={pending}>
              <DiscountField lines={lines} subtotalCents={subtotalCents} />
              <p className="cart-subtotal">
                <span>Subtotal</span>
                <strong data-testid="cart-subtotal">{formatPrice(totals.subtotalCents)}</strong>
              </p>
              <DiscountRows discount={discount && summaryDiscount(discount)} testId="cart-discount" />
              {pending && (
                <p className="cart-row cart-discount">
                  <span>Discount</span>
                  <span>Checking…</span>
                </p>
              )}
              <p className="cart-row">
                <span>Shipping (estimate)</span>
                <span data-testid="cart-shipping">{totals.shippingCents === 0 ? 'Free' : formatPrice(totals.shippingCents)}</span>
              </p>
              <p className="cart-row">
                <span>Tax (8.9%)</span>
                <span data-testid="cart-tax">{shown(totals.taxCents)}</span>
              </p>
              <p className="cart-subtotal cart-total">
                <span>Estimated total</span>
                <strong data-testid="cart-total">{shown(totals.totalCents)}</strong>
              </p>
              <p className="cart-note">
                Shipping is estimated by weight until checkout knows your address. Free shipping on orders of $500 or more after
                discounts.
              </p>
              <button type="button" className="btn cart-checkout" onClick={() => setStage('address')}>
                Checkout
              </button>
            </div>
          </>
        )}
      </div>
    </dialog>
  );
}
