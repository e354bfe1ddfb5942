import { describe, expect, it } from 'vitest';
import { type FormInputs, toInputs } from './catalogue-form';
import { differences, inWords, merged } from './save-conflict';

const base: FormInputs = toInputs({
  name: 'Turmeric Body Oil',
  price: 35,
  weight: 0.5,
  description: 'A glowing oil.',
  mainCategories: ['skincare'],
  images: [
    { src: './images/oil.svg', alt: 'The bottle' },
    { src: './images/oil-side.svg', alt: 'Its side' },
  ],
  inStock: true,
  specifications: {},
});

describe('two saves of one product that crossed', () => {
  it('lists each field where what was typed and the newer save differ, and who changed it', () => {
    const mine = { ...base, description: 'A glowing oil for dry skin.', name: 'Turmeric Oil' };
    const newer = { ...base, price: '29.99', name: 'Golden Turmeric Oil' };
    expect(differences(base, mine, newer)).toEqual([
      {
        key: 'name',
        label: 'Name',
        mine: 'Turmeric Oil',
        newer: 'Golden Turmeric Oil',
        changedByMe: true,
        changedByThem: true,
      },
      { key: 'price', label: 'Price', mine: '35.00', newer: '29.99', changedByMe: false, changedByThem: true },
      {
        key: 'description',
        label: 'Short description',
        mine: 'A glowing oil for dry skin.',
        newer: 'A glowing oil.',
        changedByMe: true,
        changedByThem: false,
      },
    ]);
  });

  it('saves the newer save with the editor’s own value where they keep it: their price, my description', () => {
    const mine = { ...base, description: 'A glowing oil for dry skin.', name: 'Turmeric Oil' };
    const newer = { ...base, price: '29.99', name: 'Golden Turmeric Oil' };
    const out = merged(mine, newer, new Set(['description', 'name'] as const));
    expect(out).toEqual({ ...base, price: '29.99', description: 'A glowing oil for dry skin.', name: 'Turmeric Oil' });
    expect(merged(mine, newer, new Set())).toEqual(newer);
  });

  it('says each kind of value in words', () => {
    const newer = { ...base, inStock: false, mainCategories: [], images: [base.images[1] ?? { src: '', alt: '' }] };
    expect(inWords('inStock', newer)).toBe('not ticked');
    expect(inWords('mainCategories', newer)).toBe('none');
    expect(inWords('images', base)).toBe('1. oil.svg: “The bottle”\n2. oil-side.svg: “Its side”');
    expect(inWords('ingredients', base)).toBe('(empty)');
  });
});
