import { describe, expect, it } from 'vitest';
import { addLine, cartId, itemCount, QUANTITY_CHOICES } from './cart';

describe('cartId', () => {
  it('is the product id for products without variants', () => {
    expect(cartId(7, null, null)).toBe('7');
  });

  it('adds the colour value, and the size when there is one', () => {
    expect(cartId(3, 'powder-blue', null)).toBe('3-powder-blue');
    expect(cartId(3, 'powder-blue', 'XL')).toBe('3-powder-blue-XL');
  });
});

describe('addLine', () => {
  const scrubs = { productId: 3, selectedColor: 'blue', selectedSize: 'M' };

  it('adds a new line, and grows an existing line of the same variant', () => {
    const once = addLine([], { ...scrubs, quantity: 2 });
    const twice = addLine(once, { ...scrubs, quantity: 3 });
    expect(twice).toEqual([{ ...scrubs, quantity: 5, cartId: '3-blue-M' }]);
  });

  it('keeps different variants apart', () => {
    const lines = addLine(addLine([], { ...scrubs, quantity: 1 }), { ...scrubs, selectedSize: 'L', quantity: 1 });
    expect(lines.map((l) => l.cartId)).toEqual(['3-blue-M', '3-blue-L']);
    expect(itemCount(lines)).toBe(2);
  });

  it('offers quantities 1 to 5', () => {
    expect(QUANTITY_CHOICES).toEqual([1, 2, 3, 4, 5]);
  });
});
