// What a save did to a product's texts, word by word, for its history: "About this product: … a soft, <del>low-foam</del>
// <ins>creamy</ins> gel …". The words are data, never markup: the form renders them as text, so a description holding
// `<script>` shows those characters. Pure, for the server's history and its tests.
import { fieldWords, productData } from './product-text';

/** A run of words: kept, taken out, put in, or `gap` for unchanged words left out of a long text ('…'). */
export type DiffPart = { kind: 'same' | 'removed' | 'added' | 'gap'; text: string };

/** One text a save changed: its name as the form shows it and what happened to its words. */
export interface TextChange {
  label: string;
  parts: DiffPart[];
}

/** Above this many cells the two texts are said whole, old then new: a word diff of two essays is no help anyway. */
const MAX_CELLS = 250_000;
/** Unchanged words kept either side of a change. */
const CONTEXT = 5;

const tokens = (text: string) => text.match(/\s+|[^\s]+/g) ?? [];

/** Adds `text` to `parts` as `kind`, joined to the last part when it is of the same kind. */
function push(parts: DiffPart[], kind: DiffPart['kind'], text: string) {
  if (!text) return;
  const last = parts[parts.length - 1];
  if (last && last.kind === kind) last.text += text;
  else parts.push({ kind, text });
}

/** The word diff of two texts: what stayed, what went and what came, in order (a longest common subsequence). */
export function wordDiff(before: string, after: string): DiffPart[] {
  const a = tokens(before);
  const b = tokens(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const parts: DiffPart[] = [];
  push(parts, 'same', a.slice(0, start).join(''));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const whole = () => {
    push(parts, 'removed', midA.join(''));
    push(parts, 'added', midB.join(''));
  };
  if (midA.length * midB.length > MAX_CELLS) whole();
  else {
    // lengths[i][j]: the longest common run of midA from i and midB from j.
    const lengths = Array.from({ length: midA.length + 1 }, () => new Uint16Array(midB.length + 1));
    for (let i = midA.length - 1; i >= 0; i--) {
      const row = lengths[i] as Uint16Array;
      const below = lengths[i + 1] as Uint16Array;
      for (let j = midB.length - 1; j >= 0; j--) {
        row[j] = midA[i] === midB[j] ? (below[j + 1] ?? 0) + 1 : Math.max(below[j] ?? 0, row[j + 1] ?? 0);
      }
    }
    const ops: DiffPart[] = [];
    let i = 0;
    let j = 0;
    while (i < midA.length || j < midB.length) {
      if (i < midA.length && j < midB.length && midA[i] === midB[j]) {
        ops.push({ kind: 'same', text: midA[i++] ?? '' });
        j++;
      } else if (i < midA.length && (j === midB.length || (lengths[i + 1]?.[j] ?? 0) >= (lengths[i]?.[j + 1] ?? 0))) {
        ops.push({ kind: 'removed', text: midA[i++] ?? '' });
      } else {
        ops.push({ kind: 'added', text: midB[j++] ?? '' });
      }
    }
    const words = (list: readonly { text: string }[]) => list.filter((t) => /\S/.test(t.text)).length;
    const common = words(ops.filter((op) => op.kind === 'same'));
    // Texts that share few words read better whole, old then new, than as a patchwork of both.
    if (common < Math.min(words(midA.map((text) => ({ text }))), words(midB.map((text) => ({ text })))) * 0.4) whole();
    else {
      // A change is said as one run out and one run in: the spaces between its words belong to both.
      let out = '';
      let into = '';
      const flush = () => {
        push(parts, 'removed', out);
        push(parts, 'added', into);
        out = '';
        into = '';
      };
      ops.forEach((op, k) => {
        if (op.kind === 'removed') out += op.text;
        else if (op.kind === 'added') into += op.text;
        else if ((out || into) && !/\S/.test(op.text) && ops[k + 1] && ops[k + 1]?.kind !== 'same') {
          out += op.text;
          into += op.text;
        } else {
          flush();
          push(parts, 'same', op.text);
        }
      });
      flush();
    }
  }
  push(parts, 'same', a.slice(endA).join(''));
  return parts;
}

/** `parts` with long unchanged runs cut to a few words either side of each change. */
export function compact(parts: readonly DiffPart[], context = CONTEXT): DiffPart[] {
  const out: DiffPart[] = [];
  parts.forEach((part, index) => {
    const words = tokens(part.text);
    // Tokens are words and the spaces between them: `context` words are twice as many tokens.
    const keepHead = index === 0 ? 0 : context * 2;
    const keepTail = index === parts.length - 1 ? 0 : context * 2;
    if (part.kind !== 'same' || words.length <= keepHead + keepTail + 1) {
      push(out, part.kind, part.text);
      return;
    }
    push(out, 'same', words.slice(0, keepHead).join('').trimEnd());
    out.push({ kind: 'gap', text: index === 0 ? '… ' : index === parts.length - 1 ? ' …' : ' … ' });
    push(
      out,
      'same',
      words
        .slice(words.length - keepTail)
        .join('')
        .trimStart(),
    );
  });
  return out;
}

const text = (v: unknown): string | null => {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join('\n');
  if (v && typeof v === 'object' && !Array.isArray(v))
    return Object.entries(v)
      .map(([k, x]) => `${k}: ${String(x)}`)
      .join('\n');
  return null;
};

/** Whether the history's one-line summary already quotes a change whole ("name “A” → “B”"). */
const quotedWhole = (before: string, after: string) => before.length <= 60 && after.length <= 60 && !/\n/.test(before + after);

const LABELS: Record<string, string> = {
  name: 'Name',
  category: 'Category label',
  description: 'Short description',
  detailedDescription: 'About this product',
  usage: 'How to use',
  benefits: 'Benefits',
  ingredients: 'Ingredients',
  specifications: 'Specifications',
};

type Picture = { src?: unknown; alt?: unknown };

/**
 * The texts a save changed, word by word, from the product file before it to the one after: every text field and
 * list, and each picture's description (a picture kept, described anew). A short one-line change the summary quotes
 * whole is left to it.
 */
export function textChanges(beforeText: string, afterText: string): TextChange[] {
  const before = productData(beforeText) ?? {};
  const after = productData(afterText) ?? {};
  const changes: TextChange[] = [];
  for (const key of Object.keys(LABELS)) {
    const was = text(before[key]) ?? '';
    const now = text(after[key]) ?? '';
    if (was === now || (key !== 'benefits' && key !== 'specifications' && quotedWhole(was, now))) continue;
    changes.push({ label: LABELS[key] ?? fieldWords(key), parts: compact(wordDiff(was, now)) });
  }
  const pictures = (v: unknown) => (Array.isArray(v) ? (v as Picture[]) : []);
  pictures(after.images).forEach((p, i) => {
    const was = pictures(before.images).find((q) => q.src === p.src);
    if (!was || typeof was.alt !== 'string' || typeof p.alt !== 'string' || was.alt === p.alt) return;
    changes.push({ label: `Picture ${i + 1}: what it shows`, parts: compact(wordDiff(was.alt, p.alt)) });
  });
  return changes;
}
