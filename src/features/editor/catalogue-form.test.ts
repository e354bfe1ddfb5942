import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { colourValue, fromInputs, toInputs, typedNumber } from './catalogue-form';
import { PRODUCTS_DIR } from './catalogue-guard';
import { EDITABLE_FIELDS, editProductText, productData } from './product-text';

describe('the product form', () => {
  it('sends every seed product back unchanged when nothing was typed: a save then writes nothing', () => {
    for (const name of readdirSync(PRODUCTS_DIR).filter((n) => n.endsWith('.md'))) {
      const text = readFileSync(`${PRODUCTS_DIR}/${name}`, 'utf8');
      const data = productData(text) ?? {};
      const fields = Object.fromEntries(EDITABLE_FIELDS.filter((k) => data[k] !== undefined).map((k) => [k, data[k]]));
      const sent = fromInputs(toInputs(fields), fields);
      if ('message' in sent) throw new Error(`${name}: ${sent.message}`);
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
      field: 'price',
      message: 'Enter the price in dollars, for example 45.00.',
    });
    expect(fromInputs({ ...toInputs(fields), specifications: 'no colon here' }, fields)).toMatchObject({
      field: 'specifications',
    });
  });

  it('names a new colour by its name as a key the stock counts can hold: 40 characters at most, no dash at the end', () => {
    expect(colourValue('Powder Blue')).toBe('powder-blue');
    const key = colourValue('Very Deep Midnight Ocean Blue With A Hint Of Teal');
    expect(key).toBe('very-deep-midnight-ocean-blue-with-a-hin');
    expect(colourValue('A'.repeat(39) + ' B')).toBe('a'.repeat(39));
  });
});
