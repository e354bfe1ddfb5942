// Two tabs (or two editors) on one product: the second save finds a newer save than the one its form was opened on,
// and the shop refuses it rather than overwrite unseen (409). Nothing typed is lost: the form compares what was typed
// with the newer save, field by field, and the editor keeps theirs or takes the newer for each, then saves over it.
// Pure, for the island and its tests.
import { FIELD_LABELS, type FormInputs, pictureOf } from './catalogue-form';

type Key = keyof FormInputs;

/** A field where what was typed and the newer save differ. */
export interface Difference {
  key: Key;
  label: string;
  /** Each value in words, as the form would show it. */
  mine: string;
  newer: string;
  /** Who changed it since the form was opened: the editor, the newer save, or both. */
  changedByMe: boolean;
  changedByThem: boolean;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A field's value in words: text as typed, a list as 'a, b', a box as ticked or not, pictures by file and description. */
export function inWords(key: Key, inputs: FormInputs): string {
  const value = inputs[key];
  if (typeof value === 'boolean') return value ? 'ticked' : 'not ticked';
  if (key === 'images') return inputs.images.map((p, i) => `${i + 1}. ${pictureOf(p.src)}: “${p.alt}”`).join('\n') || 'none';
  if (key === 'colors')
    return (
      inputs.colors.map((c) => `${c.name || '(no name)'} ${c.hex}${c.image ? `, ${pictureOf(c.image.src)}` : ''}`).join('\n') ||
      'none'
    );
  if (Array.isArray(value)) return value.join(', ') || 'none';
  return String(value) || '(empty)';
}

/**
 * The fields where `mine` (what the form holds) and `newer` (the newer save) differ, in the form's order, each with
 * who changed it since `base` (the save the form was opened on).
 */
export function differences(base: FormInputs, mine: FormInputs, newer: FormInputs): Difference[] {
  return (Object.keys(FIELD_LABELS) as Key[])
    .filter((key) => !same(mine[key], newer[key]))
    .map((key) => ({
      key,
      label: FIELD_LABELS[key],
      mine: inWords(key, mine),
      newer: inWords(key, newer),
      changedByMe: !same(base[key], mine[key]),
      changedByThem: !same(base[key], newer[key]),
    }));
}

/** The form to save over the newer save: the newer save, with the editor's own value in each field of `keepMine`. */
export function merged(mine: FormInputs, newer: FormInputs, keepMine: ReadonlySet<Key>): FormInputs {
  const out = { ...newer };
  for (const key of keepMine) (out as Record<Key, unknown>)[key] = mine[key];
  return out;
}
