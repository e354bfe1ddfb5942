// What editors did, as the owner reads it in the admin's activity log: one sentence per save, undo, new product,
// upload and publish, made from the words the editor's history uses (summariseChange), e.g. "changed the price of
// Turmeric Body Oil $35.00 → $29.99". Pure, for the server that records them and their test.
import { fieldWords, productData, sameValue, summariseChange } from './product-text';

/** The product's name in a file's text ('the product' when the file has none that reads). */
export function nameIn(text: string): string {
  const name = productData(text)?.name;
  return typeof name === 'string' && name.trim() ? name : 'the product';
}

/** The fields that differ between two texts of a product file. */
function changedFields(before: string, after: string): string[] {
  const a = productData(before) ?? {};
  const b = productData(after) ?? {};
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((key) => !sameValue(key, a[key], b[key]));
}

/**
 * A save: one field changed from one value to another is a sentence ('changed the price of Turmeric Body Oil $35.00
 * → $29.99'); anything else is the history's words after the product's name ('changed Clinical Scrubs: out of stock').
 */
export function saveWords(before: string, after: string): string {
  const name = nameIn(before);
  const summary = summariseChange(before, after);
  const [field, ...more] = changedFields(before, after);
  if (field && more.length === 0) {
    const words = fieldWords(field);
    if (summary.startsWith(`${words} `) && summary.includes(' → '))
      return `changed the ${words} of ${name} ${summary.slice(words.length + 1)}`;
  }
  return `changed ${name}: ${summary}`;
}

/** An undo of the save `undone` said: what it undid, and what the undo changed. */
export function undoWords(before: string, after: string, undone: string): string {
  return `undid “${undone}” on ${nameIn(before)}: ${summariseChange(before, after)}`;
}

/** A new product, a copy of the product in `from`. */
export function createWords(name: string, id: number, from: string): string {
  return `created ${name} (/product/${id}), a copy of ${nameIn(from)}`;
}

export function uploadWords(picture: string): string {
  return `uploaded the picture ${picture}`;
}

/** The names of the products whose file differs from one catalogue (file name → text) to another, new ones included. */
export function productsChanged(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  return [...after].filter(([file, text]) => before.get(file) !== text).map(([, text]) => nameIn(text));
}

const SHOWN = 5;

function changed(names: readonly string[]): string {
  const listed = names.length > SHOWN ? `${names.slice(0, SHOWN).join(', ')} and ${names.length - SHOWN} more` : names.join(', ');
  return `${names.length} ${names.length === 1 ? 'product' : 'products'} changed (${listed})`;
}

/** An editor pressed Publish: the products it would change for shoppers. */
export function publishRequestWords(names: readonly string[]): string {
  return `publish requested: ${names.length ? changed(names) : 'nothing changed since the last publish'}`;
}

/** A publish went live: the products it changed for shoppers. */
export function publishedWords(names: readonly string[]): string {
  return `published: ${names.length ? changed(names) : 'nothing changed'}`;
}

/** A publish failed, with the reason the editor's panel gives. */
export function publishFailedWords(reason: string): string {
  return `publish failed: ${reason}`;
}

/** An editor served an earlier publish again: which, and the products it changed back for shoppers. */
export function publishedAgainWords(publishId: number, names: readonly string[]): string {
  return `served publish ${publishId} again: ${names.length ? changed(names) : 'nothing changed'}`;
}
