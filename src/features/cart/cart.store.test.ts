import { cleanTestStorage, getTestStorage, setTestStorageKey, useTestStorageEngine } from '@nanostores/persistent';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { $toastQueue } from '../toasts/toast.store';
import { MAX_QUANTITY_MESSAGE } from './cart';

// The persistent stores read their storage when they are created, so the test storage goes in before the store loads.
// biome-ignore lint/correctness/useHookAtTopLevel: not a React hook, nanostores' switch to an in-memory storage.
useTestStorageEngine();
const { $cart, $cartOwner, $cartSaved, addToCart, clearCart } = await import('./cart.store');

const soap = { productId: 8, quantity: 2, selectedColor: null, selectedSize: null };

describe('the cart store', () => {
  let unbind: () => void;
  beforeEach(() => {
    // A mounted store follows other tabs (through the storage event), as an island keeps it mounted in a page.
    unbind = $cart.listen(() => {});
    $toastQueue.set([]);
  });
  afterEach(() => {
    unbind();
    clearCart();
    cleanTestStorage();
  });

  it('keeps a guest’s cart in local storage, so it survives a reload and reaches new tabs', () => {
    addToCart(soap);
    expect(JSON.parse(getTestStorage()['aurelia:cart'] ?? '[]')).toEqual([{ ...soap, cartId: '8' }]);
  });

  it('follows a change made in another tab', () => {
    setTestStorageKey('aurelia:cart', JSON.stringify([{ ...soap, quantity: 3, cartId: '8' }]));
    expect($cart.get()).toEqual([{ ...soap, quantity: 3, cartId: '8' }]);
  });

  it('reads edited or broken storage as an empty cart rather than failing', () => {
    setTestStorageKey('aurelia:cart', '{not json');
    expect($cart.get()).toEqual([]);
    setTestStorageKey('aurelia:cart', JSON.stringify([{ productId: 'x' }]));
    expect($cart.get()).toEqual([]);
  });

  it('tells the shopper when a line would pass 5, and keeps it at 5', () => {
    addToCart({ ...soap, quantity: 4 });
    expect($toastQueue.get()).toEqual([]);
    addToCart({ ...soap, quantity: 3 });
    expect($cart.get()).toEqual([{ ...soap, quantity: 5, cartId: '8' }]);
    expect($toastQueue.get().map((m) => [m.kind, m.title])).toEqual([['info', MAX_QUANTITY_MESSAGE]]);
  });

  it('clearCart (sign-out) removes the cart and whose it was from local storage', () => {
    addToCart(soap);
    $cartOwner.set('user-a');
    $cartSaved.set('[]');
    clearCart();
    expect($cart.get()).toEqual([]);
    expect(getTestStorage()).toEqual({ 'aurelia:cart': '[]' });
  });
});
