import { describe, expect, it } from 'vitest';
import { loadCatalogueIndex, withOutOfStock } from '../../../tests/unit/load-catalogue';
import { addLine, type CartLine, type CartLineInput, cartId, itemCount, MAX_QUANTITY, QUANTITY_CHOICES, readLines } from './cart';
import {
  CART_MESSAGES,
  cartAfterSignIn,
  cartProblem,
  knownLines,
  lineProblem,
  merge,
  removeLine,
  sameLines,
  setQuantity,
  subtotal,
  withoutUnsold,
} from './cart.rules';

/** The real catalogue, as the server reads it (soap 8 is $10, the scrubs 3 are $45 in four colours and six sizes). */
const catalogue = loadCatalogueIndex();

const line = (productId: number, quantity: number, color: string | null = null, size: string | null = null): CartLine => ({
  cartId: cartId(productId, color, size),
  productId,
  quantity,
  selectedColor: color,
  selectedSize: size,
});
const input = ({ cartId: _id, ...rest }: CartLine): CartLineInput => rest;
const soap = line(8, 2);
const blueM = line(3, 1, 'blue', 'M');

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

  it('never lets a line grow past what the product page offers', () => {
    const lines = addLine(addLine([], { ...scrubs, quantity: 4 }), { ...scrubs, quantity: 3 });
    expect(lines[0]?.quantity).toBe(MAX_QUANTITY);
  });

  it('offers quantities 1 to 5', () => {
    expect(QUANTITY_CHOICES).toEqual([1, 2, 3, 4, 5]);
    expect(MAX_QUANTITY).toBe(QUANTITY_CHOICES.at(-1));
  });
});

describe('cart arithmetic', () => {
  it('counts every item for the badge', () => {
    expect(itemCount([])).toBe(0);
    expect(itemCount([soap, blueM])).toBe(3);
  });

  it('sets a quantity, capped at the maximum; decreasing to 0 removes the line (product spec)', () => {
    expect(setQuantity([soap, blueM], soap.cartId, 4)).toEqual([{ ...soap, quantity: 4 }, blueM]);
    expect(setQuantity([soap, blueM], soap.cartId, 9)).toEqual([{ ...soap, quantity: 5 }, blueM]);
    expect(setQuantity([soap, blueM], blueM.cartId, 0)).toEqual([soap]);
    expect(setQuantity([soap], 'no-such-line', 2)).toEqual([soap]);
  });

  it('removes one line and keeps the others in order', () => {
    const oil = line(6, 1);
    expect(removeLine([soap, blueM, oil], blueM.cartId)).toEqual([soap, oil]);
  });

  it('prices the subtotal from the catalogue, never from the line', () => {
    // 2 × $10 soap + 1 × $45 scrubs.
    expect(subtotal([soap, blueM], catalogue)).toBe(6500);
    expect(subtotal([], catalogue)).toBe(0);
    // A product the catalogue no longer has adds nothing.
    expect(subtotal([soap, line(999, 3)], catalogue)).toBe(2000);
  });

  it('compares carts line by line, order included', () => {
    expect(sameLines([soap, blueM], [soap, blueM])).toBe(true);
    expect(sameLines([soap, blueM], [blueM, soap])).toBe(false);
    expect(sameLines([soap], [{ ...soap, quantity: 3 }])).toBe(false);
    expect(sameLines([], [])).toBe(true);
  });
});

describe('merge (guest cart into the saved cart at sign-in)', () => {
  it('keeps the saved lines first, then adds the guest’s new ones', () => {
    const oil = line(6, 1);
    expect(merge([oil], [soap, blueM])).toEqual([soap, blueM, oil]);
  });

  it('adds the quantities of a variant in both carts', () => {
    expect(merge([line(8, 1)], [soap])).toEqual([{ ...soap, quantity: 3 }]);
  });

  it('caps a summed line at 5, what the product page allows', () => {
    expect(merge([line(8, 4)], [line(8, 3)])).toEqual([line(8, 5)]);
  });

  it('keeps colours and sizes apart', () => {
    expect(merge([line(3, 1, 'blue', 'L')], [blueM]).map((l) => l.cartId)).toEqual(['3-blue-M', '3-blue-L']);
  });

  it('an empty guest cart leaves the saved cart as it is, and the other way round', () => {
    expect(merge([], [soap, blueM])).toEqual([soap, blueM]);
    expect(merge([soap, blueM], [])).toEqual([soap, blueM]);
  });
});

describe('cartAfterSignIn', () => {
  const userId = 'user-a';
  const saved = [soap];
  const guestCart = [blueM];

  it('merges a guest’s cart into the saved one, and saves the result', () => {
    expect(cartAfterSignIn({ userId, owner: undefined, local: guestCart, lastSaved: undefined, saved })).toEqual({
      lines: [soap, blueM],
      save: true,
    });
  });

  it('an empty guest cart takes the saved cart without saving it again', () => {
    expect(cartAfterSignIn({ userId, owner: undefined, local: [], lastSaved: undefined, saved })).toEqual({
      lines: saved,
      save: false,
    });
  });

  it('the shopper’s own cart, unchanged here since it was saved, gives way to the saved one (another device)', () => {
    const elsewhere = [soap, line(6, 2)];
    expect(cartAfterSignIn({ userId, owner: userId, local: [soap], lastSaved: [soap], saved: elsewhere })).toEqual({
      lines: elsewhere,
      save: false,
    });
  });

  it('the shopper’s own cart, changed here after it was last saved (page closed in the pause), wins and is saved', () => {
    expect(cartAfterSignIn({ userId, owner: userId, local: [soap, blueM], lastSaved: [soap], saved: [soap] })).toEqual({
      lines: [soap, blueM],
      save: true,
    });
  });

  it('another shopper’s leftover cart is never merged into this account', () => {
    expect(cartAfterSignIn({ userId, owner: 'user-b', local: guestCart, lastSaved: guestCart, saved })).toEqual({
      lines: saved,
      save: false,
    });
  });
});

describe('line rules shared with the server', () => {
  const cases: [string, CartLineInput, string][] = [
    [
      'an unknown product',
      { productId: 999, quantity: 1, selectedColor: null, selectedSize: null },
      'product 999 is not in the catalogue.',
    ],
    ['quantity 0', { ...input(soap), quantity: 0 }, 'Turmeric Face Soap: the quantity must be a whole number from 1 to 5.'],
    ['quantity 6', { ...input(soap), quantity: 6 }, 'Turmeric Face Soap: the quantity must be a whole number from 1 to 5.'],
    ['quantity 1.5', { ...input(soap), quantity: 1.5 }, 'Turmeric Face Soap: the quantity must be a whole number from 1 to 5.'],
    [
      'a colour for a product without colours',
      { ...input(soap), selectedColor: 'blue' },
      'Turmeric Face Soap comes in one colour only; send no colour.',
    ],
    [
      'a size for a product without sizes',
      { ...input(soap), selectedSize: 'M' },
      'Turmeric Face Soap comes in one size only; send no size.',
    ],
    ['scrubs without a colour', { ...input(blueM), selectedColor: null }, 'Clinical Scrubs: please choose a colour.'],
    [
      'scrubs in an unknown colour',
      { ...input(blueM), selectedColor: 'red' },
      'Clinical Scrubs does not come in the colour “red”.',
    ],
    ['scrubs without a size', { ...input(blueM), selectedSize: null }, 'Clinical Scrubs: please choose a size.'],
    ['scrubs in an unknown size', { ...input(blueM), selectedSize: 'XXXL' }, 'Clinical Scrubs does not come in the size “XXXL”.'],
  ];

  it.each(cases)('refuses %s', (_what, bad, message) => {
    expect(lineProblem(bad, catalogue.get(bad.productId))).toBe(message);
  });

  it('accepts every product the catalogue sells, with its variants', () => {
    for (const product of catalogue.values()) {
      const ok = {
        productId: product.id,
        quantity: 5,
        selectedColor: product.colors[0] ?? null,
        selectedSize: product.sizes[0] ?? null,
      };
      expect(lineProblem(ok, product), product.name).toBeNull();
    }
  });

  it('names the line a cart’s first problem is on', () => {
    expect(cartProblem([input(soap), input(blueM)], catalogue)).toBeNull();
    expect(cartProblem([input(soap), { ...input(blueM), selectedSize: null }], catalogue)).toBe(
      'Line 2: Clinical Scrubs: please choose a size.',
    );
  });

  it('refuses the same variant twice, naming both lines', () => {
    expect(cartProblem([input(soap), input(blueM), { ...input(soap), quantity: 1 }], catalogue)).toBe(
      'Line 3 repeats line 1; send each product, colour and size once.',
    );
  });

  it('drops lines the catalogue no longer accepts before a save', () => {
    const gone = line(999, 1);
    const retired = line(3, 1, 'red', 'M');
    expect(knownLines([soap, gone, blueM, retired], catalogue)).toEqual([soap, blueM]);
  });
});

describe('an out-of-stock product (inStock: false)', () => {
  // Nothing in the real catalogue is out of stock: the soap and the scrubs are marked so in a copy.
  const soldOut = withOutOfStock(withOutOfStock(catalogue, 8), 3);

  it('is refused in any quantity or variant, by name', () => {
    expect(CART_MESSAGES.outOfStock('Turmeric Face Soap')).toBe('Turmeric Face Soap is out of stock.');
    for (const bad of [input(soap), { ...input(soap), quantity: 1 }, input(blueM)]) {
      const name = soldOut.get(bad.productId)?.name ?? '';
      expect(lineProblem(bad, soldOut.get(bad.productId))).toBe(`${name} is out of stock.`);
    }
    // Being in stock is checked first: the shopper is not asked to pick a size of something they cannot buy.
    expect(lineProblem({ ...input(blueM), selectedSize: null }, soldOut.get(3))).toBe('Clinical Scrubs is out of stock.');
  });

  it('makes the cart refused, naming its line, while the same cart is fine when it is in stock', () => {
    const cart = [input(line(6, 1)), input(soap)];
    expect(cartProblem(cart, catalogue)).toBeNull();
    expect(cartProblem(cart, soldOut)).toBe('Line 2: Turmeric Face Soap is out of stock.');
  });

  it('drops out of a cart before it is saved or checked out; the other lines stay in order', () => {
    const oil = line(6, 1);
    expect(knownLines([soap, oil, blueM], soldOut)).toEqual([oil]);
    expect(knownLines([soap, oil, blueM], catalogue)).toEqual([soap, oil, blueM]);
  });

  it('leaves the cart with a word to the shopper, not silently', () => {
    const notice = (lines: CartLine[], known = catalogue) => withoutUnsold(lines, known).notice;
    expect(withoutUnsold([line(6, 1), soap], soldOut)).toEqual({
      known: [line(6, 1)],
      notice: 'Turmeric Face Soap is out of stock and was taken out of your cart.',
    });
    expect(notice([soap, blueM])).toBeNull();
    expect(notice([line(3, 1, 'red', 'M')])).toBe(
      'Clinical Scrubs (red, M) is no longer available and was taken out of your cart.',
    );
    expect(notice([line(999, 1)])).toBe('An item is no longer available and was taken out of your cart.');
    expect(notice([soap, blueM], soldOut)).toBe('2 items are no longer available and were taken out of your cart.');
  });
});

describe('readLines (what local storage holds)', () => {
  it('reads what the store wrote', () => {
    expect(readLines(JSON.parse(JSON.stringify([soap, blueM])))).toEqual([soap, blueM]);
  });

  it('drops anything that is not a line, and works the key out again', () => {
    expect(
      readLines([
        null,
        'soap',
        { productId: '8', quantity: 1, selectedColor: null, selectedSize: null },
        { productId: 8, quantity: 0, selectedColor: null, selectedSize: null },
        { productId: 8, quantity: 2, selectedColor: 7, selectedSize: null },
        { cartId: 'forged', productId: 3, quantity: 1, selectedColor: 'blue', selectedSize: 'M' },
      ]),
    ).toEqual([blueM]);
    expect(readLines({ lines: [] })).toEqual([]);
    expect(readLines(null)).toEqual([]);
  });

  it('joins repeated variants and keeps each to the maximum', () => {
    expect(readLines([input(line(8, 4)), input(line(8, 4))])).toEqual([line(8, 5)]);
  });
});
