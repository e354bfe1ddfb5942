import { atom } from 'nanostores';

/** The colour value chosen on the product page; the gallery shows that colour's picture. */
export const $selectedColor = atom<string | null>(null);
