import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { colourValue, fromInputs, inputFor, moved, toInputs, typedNumber } from './catalogue-form';
import { PRODUCTS_DIR } from './catalogue-guard';
import { EDITABLE_FIELDS, editProductText, productData } from './product-text';

describe('the product form', () => {
  it('sends every seed product back unchanged when nothing was typed: a save then writes nothing', () => {
    for (const name of readdirSync(PRODUCTS_DIR).filter((n) => n.endsWith('.md'))) {
      const text = readFileSync(`${PRODUCTS_DIR}/${name}`, 'utf8');
      const data = productData(text) ?? {};
      const fields = Object.fromEntries(EDITABLE_FIELDS.filter((k) => data[k] !== undefined).map((k) => [k, data[k]]));
      const sent = fromInputs(toInputs(fields), fields);
      if ('problems' in sent) throw new Error(`${name}: ${sent.problems[0]?.message}`);
      expect(editProductText(text, sent.fields), name).toBe(text);
    }
  });

  it('reads a price as typed, never rounded, and says what to type when it is not a number', () => {
    expect(typedNumber('47.00')).toBe(47);
    expect(typedNumber(' $29.999 ')).toBe(29.999);
    expect(typedNumber('4O')).toBeNull();
    expect(typedNumber('')).toBeNull();
    const fields = { price: 45, weight: 1, specifications: {} };
    expect(fromInputs({ ...toInputs(fields), price: 'forty' }, fields)).toEqual({
      problems: [{ field: 'price', message: 'Enter the price in dollars, for example 45.00.' }],
    });
    // Every input that cannot be read, at once.
    expect(fromInputs({ ...toInputs(fields), price: '', weight: 'a lot', specifications: 'no colon here' }, fields)).toEqual({
      problems: [
        { field: 'price', message: 'Enter the price in dollars, for example 45.00.' },
        { field: 'weight', message: 'Enter the weight in pounds, for example 1.2.' },
        {
          field: 'specifications',
          message: 'Write each specification on its own line as “label: value”, for example “size: 8 oz” (not “no colon here”).',
        },
      ],
    });
  });

  it('finds the input each refusal sits beside', () => {
    expect(
      ['price', 'images', 'images.2.alt', 'images.0.src', 'images.1', 'colors', 'colors.3.name', 'colors.0.hex'].map(inputFor),
    ).toEqual(['price', 'images', 'alt-2', 'img-0', 'img-1', 'colours', 'colour-3', 'hex-0']);
    expect(['colors.1.image.src', 'colors.1.image.alt', 'mainCategories', 'product', 'id', ''].map(inputFor)).toEqual([
      'colour-img-1',
      'colour-alt-1',
      'mainCategories',
      'product',
      'product',
      'product',
    ]);
    expect(['sale', 'sale.price', 'sale.startsAt', 'sale.endsAt'].map(inputFor)).toEqual([
      'salePrice',
      'salePrice',
      'saleStartsAt',
      'saleEndsAt',
    ]);
  });

  it('moves a picture up or down, the others keeping their order', () => {
    expect(moved(['a', 'b', 'c', 'd'], 2, 1)).toEqual(['a', 'c', 'b', 'd']);
    expect(moved(['a', 'b', 'c', 'd'], 0, 1)).toEqual(['b', 'a', 'c', 'd']);
    expect(moved(['a', 'b', 'c'], 2, 0)).toEqual(['c', 'a', 'b']);
  });

  it('names a new colour by its name as a key the stock counts can hold: 40 characters at most, no dash at the end', () => {
    expect(colourValue('Powder Blue')).toBe('powder-blue');
    const key = colourValue('Very Deep Midnight Ocean Blue With A Hint Of Teal');
    expect(key).toBe('very-deep-midnight-ocean-blue-with-a-hin');
    expect(colourValue(`${'A'.repeat(39)} B`)).toBe('a'.repeat(39));
  });
});
