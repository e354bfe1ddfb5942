// A product file as the shop's editor changes it: only the fields that changed are rewritten, each in the YAML the
// `yaml` package writes for it, and every other line keeps its text, so a one-line price change is a one-line diff.
// And what a save changed, in words for the history ("price $45.00 → $47.00").
import { load } from 'js-yaml';
import { Document, isMap, isScalar, parseDocument, type Scalar, visit } from 'yaml';
import { frontMatterBlock } from './catalogue-guard';

/** The fields the editor's form changes. The id (the product's URL), the file name and the like count are not among them. */
export const EDITABLE_FIELDS = [
  'name',
  'category',
  'mainCategories',
  'price',
  'sale',
  'description',
  'detailedDescription',
  'images',
  'colors',
  'sizes',
  'usage',
  'specifications',
  'inStock',
  'finalSale',
  'sku',
  'weight',
  'benefits',
  'ingredients',
] as const;
export type EditableField = (typeof EDITABLE_FIELDS)[number];

/** Fields no save may change: a product's URL is its id, and its likes are the shoppers'. */
export const LOCKED_FIELDS = ['id', 'likes'] as const;

/** The front matter as data (read as the build reads it), or null when the file has none that parses. */
export function productData(text: string): Record<string, unknown> | null {
  const block = frontMatterBlock(text);
  if (!block) return null;
  try {
    const data = load(block.yaml);
    return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** What the schema puts in place of an absent field: absent and the default are the same product. */
const DEFAULTS: Record<string, unknown> = { sizes: [], colors: [], reviews: [], finalSale: false, sale: null };

/** Fields a save takes out of the file when it sends them as null (a sale ended before its time, or never wanted). */
const REMOVED_WHEN_NULL = new Set(['sale']);

/** Whether two field values are the same product data (an absent list is an empty one, an absent finalSale false). */
export function sameValue(key: string, a: unknown, b: unknown): boolean {
  const norm = (v: unknown) => (v === undefined && key in DEFAULTS ? DEFAULTS[key] : v);
  return JSON.stringify(norm(a)) === JSON.stringify(norm(b));
}

/** Whether `rendered` (one `key: value` pair) reads back, as the build reads it, as exactly `value`. */
function readsBackAs(rendered: string, key: string, value: unknown): boolean {
  try {
    const data = load(rendered) as Record<string, unknown> | null;
    return JSON.stringify(data?.[key]) === JSON.stringify(value);
  } catch {
    return false;
  }
}

/** A field whose new text cannot be written so that the build reads it back exactly (odd white space, say). */
export class UnwritableText extends Error {
  constructor(readonly field: string) {
    super(`${field}: this text cannot be written to the file as typed.`);
  }
}

/**
 * `key: value` as the yaml package writes it, keeping a text's original style (folded, literal, quoted) when that
 * style can hold the new text exactly; otherwise in the style the package chooses.
 */
function renderPair(key: string, value: unknown, original: unknown): string {
  const style = isScalar(original) ? (original as Scalar).type : undefined;
  if (typeof value === 'string' && style && style !== 'PLAIN') {
    const doc = new Document({ [key]: value });
    const node = doc.get(key, true);
    if (isScalar(node)) node.type = style;
    // No folding of long lines (a changed sentence stays one line), except in a text that was folded already.
    const kept = doc.toString({ lineWidth: style === 'BLOCK_FOLDED' ? 110 : 0 });
    if (readsBackAs(kept, key, value)) return kept;
  }
  const plain = new Document({ [key]: value }).toString({ lineWidth: 0 });
  if (readsBackAs(plain, key, value)) return plain;
  // Text that reads as something else unquoted (a sale's time, read as a date): its values in double quotes, keys plain.
  const values = new Document({ [key]: value });
  visit(values, {
    Pair: (_, pair) => {
      if (isScalar(pair.value) && typeof pair.value.value === 'string') pair.value.type = 'QUOTE_DOUBLE';
    },
  });
  const quotedValues = values.toString({ lineWidth: 0 });
  if (readsBackAs(quotedValues, key, value)) return quotedValues;
  // Text with odd white space the two YAML libraries read differently: double quotes, whose escapes both read alike.
  const quoted = new Document({ [key]: value }).toString({ lineWidth: 0, defaultStringType: 'QUOTE_DOUBLE' });
  if (readsBackAs(quoted, key, value)) return quoted;
  throw new UnwritableText(key);
}

/**
 * The product file `text` with `changes` applied: each field whose value differs is written again in place (the
 * `yaml` package's Document API finds where its node starts and ends); untouched fields keep their exact text. The
 * package's own `toString` would re-fold every long line of the file, so only the changed pairs are written by it.
 */
export function editProductText(text: string, changes: Readonly<Record<string, unknown>>): string {
  const block = frontMatterBlock(text);
  if (!block) throw new Error('the file does not start with a --- front matter block');
  const doc = parseDocument(block.yaml);
  if (doc.errors.length > 0 || !isMap(doc.contents)) throw new Error('the front matter is not a YAML map');
  const current = (productData(text) ?? {}) as Record<string, unknown>;
  const edits: { start: number; end: number; replacement: string }[] = [];
  const { yaml } = block;
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined || sameValue(key, current[key], value)) continue;
    const pair = doc.contents.items.find((p) => isScalar(p.key) && p.key.value === key);
    const keyRange = isScalar(pair?.key) ? pair.key.range : undefined;
    const valueNode = pair?.value as { range?: [number, number, number] } | null | undefined;
    const replacement = value === null && REMOVED_WHEN_NULL.has(key) ? '' : renderPair(key, value, pair?.value);
    if (!keyRange) {
      edits.push({ start: yaml.length, end: yaml.length, replacement });
      continue;
    }
    const valueEnd = valueNode?.range?.[2] ?? keyRange[2];
    // To the end of the value's last line, its newline included.
    const end =
      yaml[valueEnd - 1] === '\n'
        ? valueEnd
        : (() => {
            const newline = yaml.indexOf('\n', valueEnd);
            return newline === -1 ? yaml.length : newline + 1;
          })();
    edits.push({ start: keyRange[0], end, replacement });
  }
  if (edits.length === 0) return text;
  let out = yaml;
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    out = out.slice(0, edit.start) + edit.replacement + out.slice(edit.end);
  }
  return text.slice(0, block.start) + out + text.slice(block.start + yaml.length);
}

/** A field's name in words: 'detailedDescription' → 'detailed description'. */
export function fieldWords(key: string): string {
  if (key === 'sku') return 'SKU';
  if (key === 'mainCategories') return 'home page categories';
  if (key === 'colors') return 'colours';
  if (key === 'images') return 'pictures';
  if (key === 'hasColors') return 'has colours';
  return key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}

const dollars = (n: unknown) => (typeof n === 'number' ? `$${n.toFixed(2)}` : String(n));
const quoted = (s: string) => `“${s}”`;
const isTextList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

type Picture = { src: string; alt: string };
const isPictureList = (v: unknown): v is Picture[] =>
  Array.isArray(v) && v.every((p) => p && typeof p === 'object' && typeof p.src === 'string' && typeof p.alt === 'string');

/** What changed in a product's pictures: 'pictures reordered', 'pictures: added x.png, picture 2’s description changed'. */
function describePictures(before: Picture[], after: Picture[]): string {
  const name = (p: Picture) => p.src.replace(/^\.\/images\//, '');
  const had = (list: Picture[], p: Picture) => list.some((q) => q.src === p.src);
  const added = after.filter((p) => !had(before, p)).map(name);
  const removed = before.filter((p) => !had(after, p)).map(name);
  const described = after.flatMap((p, i) => {
    const was = before.find((q) => q.src === p.src);
    return was && was.alt !== p.alt ? [`picture ${i + 1}’s description changed`] : [];
  });
  const kept = (list: Picture[], other: Picture[]) =>
    list
      .filter((p) => had(other, p))
      .map((p) => p.src)
      .join('\n');
  const reordered = kept(before, after) !== kept(after, before);
  if (reordered && !added.length && !removed.length && !described.length) return 'pictures reordered';
  const parts = [
    ...(added.length ? [`added ${added.join(', ')}`] : []),
    ...(removed.length ? [`removed ${removed.join(', ')}`] : []),
    ...described,
    ...(reordered ? ['reordered'] : []),
  ];
  return parts.length ? `pictures: ${parts.join(', ')}` : 'pictures changed';
}

/** A sale's time as the file writes it ('2026-12-24T09:00:00-05:00'), on the clock it names: 'Dec 24, 2026, 9:00 AM'. */
function saleTime(value: unknown): string {
  const text = value instanceof Date ? value.toISOString() : String(value);
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?)(?:\.\d+)?(Z|[+-]\d{2}:\d{2})$/.exec(text);
  if (!m?.[1]) return text;
  const wall = new Date(`${m[1]}Z`);
  const words = new Intl.DateTimeFormat('en-US', {
    dateStyle: 'medium',
    timeStyle: wall.getUTCSeconds() ? 'medium' : 'short',
    timeZone: 'UTC',
  }).format(wall);
  return m[2] === 'Z' ? `${words} UTC` : words;
}

/** A sale in words: '$29.99 from Dec 9, 2026, 9:00 AM to Dec 10, 2026, 12:00 AM'. */
function saleWords(sale: unknown): string {
  const s = (sale ?? {}) as { price?: unknown; startsAt?: unknown; endsAt?: unknown };
  return `${dollars(s.price)} from ${saleTime(s.startsAt)} to ${saleTime(s.endsAt)}`;
}

/** A sale's change in words: set, changed or taken away. */
function saleChange(before: unknown, after: unknown): string {
  if (before === undefined || before === null) return `sale ${saleWords(after)}`;
  if (after === undefined || after === null) return `sale removed (was ${saleWords(before)})`;
  return `sale ${saleWords(before)} → ${saleWords(after)}`;
}

/** One field's change in words. */
function describeChange(key: string, before: unknown, after: unknown): string {
  const words = fieldWords(key);
  if (key === 'images' && isPictureList(before) && isPictureList(after)) return describePictures(before, after);
  if (key === 'price') return `price ${dollars(before)} → ${dollars(after)}`;
  if (key === 'inStock') return after ? 'back in stock' : 'out of stock';
  if (key === 'finalSale') return after ? 'marked final sale' : 'no longer final sale';
  if (key === 'weight') return `weight ${String(before)} lb → ${String(after)} lb`;
  if (key === 'sale') return saleChange(before, after);
  if (before === undefined) return `${words} added`;
  if (after === undefined) return `${words} removed`;
  if (typeof before === 'string' && typeof after === 'string') {
    return before.length <= 60 && after.length <= 60 && !/\n/.test(before + after)
      ? `${words} ${quoted(before)} → ${quoted(after)}`
      : `${words} changed`;
  }
  if (isTextList(before) && isTextList(after)) {
    const added = after.filter((x) => !before.includes(x));
    const removed = before.filter((x) => !after.includes(x));
    const parts = [
      ...(added.length ? [`added ${added.map(quoted).join(', ')}`] : []),
      ...(removed.length ? [`removed ${removed.map(quoted).join(', ')}`] : []),
    ];
    const said = parts.length ? parts.join(', ') : 'reordered';
    return `${words}: ${said.length > 200 ? 'changed' : said}`;
  }
  if (typeof before !== 'object' && typeof after !== 'object') return `${words} ${String(before)} → ${String(after)}`;
  return `${words} changed`;
}

/** What changed from one product file to another, in words: 'price $45.00 → $47.00; SKU “A” → “B”'. */
export function summariseChange(beforeText: string, afterText: string): string {
  const before = productData(beforeText) ?? {};
  const after = productData(afterText) ?? {};
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const changes = keys.filter((k) => !sameValue(k, before[k], after[k])).map((k) => describeChange(k, before[k], after[k]));
  const text = changes.length ? changes.join('; ') : 'no change';
  return text.length > 1000 ? `${text.slice(0, 999)}…` : text;
}
