import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PRODUCTS_DIR } from './catalogue-guard';
import { editProductText } from './product-text';
import { compact, textChanges, wordDiff } from './text-diff';

const scrubs = readFileSync(`${PRODUCTS_DIR}/03-clinical-scrubs.md`, 'utf8');
/** The parts as a reader sees them: [-taken out-] and {+put in+}. */
const shown = (parts: ReturnType<typeof wordDiff>) =>
  parts.map((p) => (p.kind === 'removed' ? `[-${p.text}-]` : p.kind === 'added' ? `{+${p.text}+}` : p.text)).join('');

describe('a word diff', () => {
  it('says which words went and which came, keeping the rest', () => {
    expect(shown(wordDiff('a soft, low-foam gel that rinses clean', 'a soft, creamy gel that rinses clean'))).toBe(
      'a soft, [-low-foam-]{+creamy+} gel that rinses clean',
    );
    expect(shown(wordDiff('one two three', 'one three'))).toBe('one [-two -]three');
    expect(shown(wordDiff('', 'new text'))).toBe('{+new text+}');
    expect(shown(wordDiff('old text', ''))).toBe('[-old text-]');
    expect(wordDiff('same', 'same')).toEqual([{ kind: 'same', text: 'same' }]);
  });

  it('keeps line breaks as they were typed', () => {
    expect(shown(wordDiff('1. Wet skin.\n2. Lather.', '1. Wet skin.\n2. Lather.\n3. Rinse.'))).toBe(
      '1. Wet skin.\n2. Lather.{+\n3. Rinse.+}',
    );
  });

  it('leaves out long unchanged runs, keeping five words either side of a change', () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`);
    const after = words.map((w) => (w === 'w20' ? 'CHANGED' : w));
    expect(shown(compact(wordDiff(words.join(' '), after.join(' '))))).toBe(
      '… w15 w16 w17 w18 w19 [-w20-]{+CHANGED+} w21 w22 w23 w24 w25 …',
    );
  });

  it('says texts that share few words whole, old then new', () => {
    expect(shown(wordDiff('A soft stretch scrub set', 'Modern scrubs in a new fabric'))).toBe(
      '[-A soft stretch scrub set-]{+Modern scrubs in a new fabric+}',
    );
  });

  it('says two long texts whole, old then new, rather than spend seconds comparing them', () => {
    const a = Array.from({ length: 600 }, (_, i) => `a${i}`).join(' ');
    const b = Array.from({ length: 600 }, (_, i) => `b${i}`).join(' ');
    const started = performance.now();
    expect(wordDiff(a, b)).toEqual([
      { kind: 'removed', text: a },
      { kind: 'added', text: b },
    ]);
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe('the texts a save changed', () => {
  it('a long description and a picture’s description, word by word; markup stays text', () => {
    const edited = editProductText(scrubs, {
      description: 'Modern <script>alert(1)</script> scrubs in a four-way stretch fabric.',
      images: [
        { src: './images/clinical-scrubs.svg', alt: 'Front view of the blue scrubs' },
        { src: './images/clinical-scrubs-blue.svg', alt: 'x' },
        { src: './images/clinical-scrubs-detail.svg', alt: 'y' },
      ],
    });
    const changes = textChanges(scrubs, edited);
    expect(changes.map((c) => c.label)).toEqual([
      'Short description',
      'Picture 1: what it shows',
      'Picture 2: what it shows',
      'Picture 3: what it shows',
    ]);
    expect(shown(changes[0]?.parts ?? [])).toContain('{+Modern <script>alert(1)</script> scrubs');
  });

  it('leaves a short one-line change to the summary, which quotes it whole; says a list line by line', () => {
    expect(textChanges(scrubs, editProductText(scrubs, { name: 'Clinical Scrub Set' }))).toEqual([]);
    const [benefits] = textChanges(scrubs, editProductText(scrubs, { benefits: ['Breathable', 'Soft'] }));
    expect(benefits?.label).toBe('Benefits');
    expect(textChanges(scrubs, editProductText(scrubs, { price: 47 }))).toEqual([]);
  });
});
