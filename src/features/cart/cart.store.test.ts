import { cleanTestStorage, getTestStorage, setTestStorageKey, useTestStorageEngine } from '@nanostores/persistent';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { $toasts } from '../toasts/toast.store';
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
    $toasts.set([]);
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

  it('tells the shopper when a line would pass 5, keeps it at 5 and answers how many it really added', () => {
    expect(addToCart({ ...soap, quantity: 4 })).toBe(4);
    expect($toasts.get()).toEqual([]);
    expect(addToCart({ ...soap, quantity: 3 })).toBe(1);
    expect($cart.get()).toEqual([{ ...soap, quantity: 5, cartId: '8' }]);
    expect($toasts.get().map((m) => [m.kind, m.title])).toEqual([['info', MAX_QUANTITY_MESSAGE]]);
    expect(addToCart({ ...soap, quantity: 1 })).toBe(0);
    expect($cart.get()).toEqual([{ ...soap, quantity: 5, cartId: '8' }]);
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
