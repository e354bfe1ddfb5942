import { describe, expect, it } from 'vitest';
import { loadCatalogueIndex } from '../../../tests/unit/load-catalogue';
import { parseCount } from '../admin/stock/stock-admin';
import { type CartLine, cartId } from '../cart/cart';
import { availableFor, type StockAnswer, shortfallMessage, withinStock } from './stock';
import { itemLabel, stockAnswer, variantKeys } from './stock.server';

const catalogue = loadCatalogueIndex();
const line = (productId: number, quantity: number, color: string | null = null, size: string | null = null): CartLine => ({
  cartId: cartId(productId, color, size),
  productId,
  quantity,
  selectedColor: color,
  selectedSize: size,
});
const label = (l: CartLine) => `item ${l.cartId}`;

describe('what the cart, the product page and the checkout say of stock', () => {
  const stock: StockAnswer = { available: { '7': 2, '3-blue-M': 0, '6': 9 }, soldOut: [] };

  it('an item without a count is unlimited; a count is never below 0', () => {
    expect(availableFor(stock, line(1, 1))).toBeUndefined();
    expect(availableFor(stock, line(7, 1))).toBe(2);
    expect(availableFor({ available: { '7': -1 }, soldOut: [] }, line(7, 1))).toBe(0);
    expect(availableFor(stock, line(3, 1, 'blue', 'M'))).toBe(0);
    expect(availableFor(stock, line(3, 1, 'blue', 'L'))).toBeUndefined();
  });

  it('keeps the cart within what can be bought, saying what changed, and leaves a cart within it as it was', () => {
    const cart = [line(1, 5), line(7, 4), line(3, 1, 'blue', 'M'), line(6, 3)];
    const { lines, notices } = withinStock(cart, stock, label);
    expect(lines).toEqual([line(1, 5), line(7, 2), line(6, 3)]);
    expect(lines[0]).toBe(cart[0]);
    expect(notices).toEqual([
      'Only 2 of item 7 left: your cart now holds 2.',
      'item 3-blue-M is out of stock and was taken out of your cart.',
    ]);
    expect(withinStock(lines, stock, label)).toEqual({ lines, notices: [] });
  });

  it('names every item a checkout is short of, and how many are left', () => {
    expect(
      shortfallMessage([
        { label: 'Kojic Acid Soap', wanted: 3, available: 1 },
        { label: 'Clinical Scrubs (Blue, M)', wanted: 1, available: 0 },
      ]),
    ).toBe(
      'Only 1 of Kojic Acid Soap left. Please lower the quantity in your cart. ' +
        'Clinical Scrubs (Blue, M) is out of stock. Please remove it from your cart.',
    );
  });
});

describe('GET /api/stock’s answer', () => {
  it('names items as the shop does, colours by their names', () => {
    expect(itemLabel(catalogue, { productId: 3, color: 'powder-blue', size: 'XL' })).toBe('Clinical Scrubs (Powder Blue, XL)');
    expect(itemLabel(catalogue, { productId: 7, color: '', size: '' })).toBe('Kojic Acid Soap');
  });

  it('availability by cart id for the items still sold; sold out: a product, or every colour × size of it, at 0', () => {
    const scrubs = catalogue.get(3);
    if (!scrubs) throw new Error('no scrubs');
    const every = variantKeys(3, scrubs);
    expect(every).toHaveLength(scrubs.colors.length * scrubs.sizes.length);
    const rows = [
      { productId: 7, color: '', size: '', available: 0 },
      { productId: 6, color: '', size: '', available: 4 },
      // A colour the catalogue no longer makes is left out; so is a count kept for a product as a whole that sells by size.
      { productId: 3, color: 'mauve', size: 'M', available: 5 },
      { productId: 3, color: '', size: '', available: 5 },
      ...every.slice(1).map((k) => ({ ...k, available: 0 })),
    ];
    const answer = stockAnswer(rows, catalogue);
    expect(answer.available['7']).toBe(0);
    expect(answer.available['6']).toBe(4);
    expect(answer.available['3-mauve-M']).toBeUndefined();
    expect(answer.available['3']).toBeUndefined();
    // One colour and size of the scrubs is not counted (unlimited): the scrubs are not sold out.
    expect(answer.soldOut).toEqual([7]);
    const first = every[0];
    if (!first) throw new Error('no variant');
    expect(stockAnswer([...rows, { ...first, available: 0 }], catalogue).soldOut).toEqual([3, 7]);
  });
});

describe('a count as the owner types it', () => {
  it('blank is unlimited, a whole number from 0 to a million is itself, anything else is refused', () => {
    expect(parseCount('')).toBeNull();
    expect(parseCount('  ')).toBeNull();
    expect(parseCount('0')).toBe(0);
    expect(parseCount(' 12 ')).toBe(12);
    expect(parseCount('1000000')).toBe(1_000_000);
    for (const bad of ['-1', '1.5', '1e3', '1000001', 'ten', '0x10', '12 3']) expect(parseCount(bad), bad).toBeUndefined();
  });
});
