import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fileProblems, PRODUCTS_DIR } from './catalogue-guard';
import { editProductText, productData, summariseChange } from './product-text';

const read = (name: string) => readFileSync(`${PRODUCTS_DIR}/${name}`, 'utf8');
const scrubs = read('03-clinical-scrubs.md');

/** The lines of `b` that differ from `a`'s, as a line diff would count them (same number of lines here). */
function changedLines(a: string, b: string): { removed: string[]; added: string[] } {
  const left = a.split('\n');
  const right = b.split('\n');
  let start = 0;
  while (start < left.length && left[start] === right[start]) start++;
  let endA = left.length;
  let endB = right.length;
  while (endA > start && endB > start && left[endA - 1] === right[endB - 1]) {
    endA--;
    endB--;
  }
  return { removed: left.slice(start, endA), added: right.slice(start, endB) };
}

describe('editing a product file', () => {
  it('a price change changes exactly one line of 03-clinical-scrubs.md', () => {
    const edited = editProductText(scrubs, { price: 47 });
    expect(changedLines(scrubs, edited)).toEqual({ removed: ['price: 45'], added: ['price: 47'] });
    expect(productData(edited)?.price).toBe(47);
    expect(fileProblems(edited).problems).toEqual([]);
  });

  it('a field sent with its value unchanged leaves the file as it was, byte for byte, in every seed file', () => {
    for (const name of readdirSync(PRODUCTS_DIR).filter((n) => n.endsWith('.md'))) {
      const text = read(name);
      const data = productData(text) ?? {};
      expect(editProductText(text, data), name).toBe(text);
    }
  });

  it('a changed text keeps its folded style and touches only its own lines', () => {
    const data = productData(scrubs) ?? {};
    const longer = `${String(data.detailedDescription)} Now with a second chest pocket.`;
    const edited = editProductText(scrubs, { detailedDescription: longer });
    expect(productData(edited)?.detailedDescription).toBe(longer);
    expect(edited).toContain('detailedDescription: >-\n');
    const { removed, added } = changedLines(scrubs, edited);
    for (const line of [...removed, ...added]) expect(line).toMatch(/^(detailedDescription: | {2}\S)/);
    expect(editProductText(scrubs, { sku: 'AUR-SCRB-SET2' }).replace('sku: AUR-SCRB-SET2', 'sku: AUR-SCRB-SET')).toBe(scrubs);
  });

  it('a multi-line usage stays a literal block, and a list is rewritten as a list', () => {
    const edited = editProductText(scrubs, { usage: '1. Wash cold.\n2. Hang to dry.\n', sizes: ['S', 'M'] });
    expect(edited).toContain('usage: |\n  1. Wash cold.\n  2. Hang to dry.\n');
    expect(edited).toContain('sizes:\n  - S\n  - M\n');
    expect(productData(edited)?.sizes).toEqual(['S', 'M']);
  });
});

describe('text an editor types cannot change anything else in the file', () => {
  const hostile = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.constantFrom(
      '---',
      '\n---\nid: 99\n---\n',
      'x\nid: 99',
      '"\nlikes: 0',
      "' # comment",
      '&a *a',
      '!!js/function x',
      '|',
      '>- x',
    ),
    fc
      .array(fc.constantFrom('\n', '---', 'id: 99', ': ', '#', '"', "'", ' ', '\t', '\\', 'likes: 0', '{', '['), {
        maxLength: 12,
      })
      .map((a) => a.join('')),
  );
  it('whatever the name, description or usage hold, they read back as typed and the id and likes stay', () => {
    fc.assert(
      fc.property(hostile, hostile, hostile, fc.array(hostile, { maxLength: 3 }), (name, description, usage, benefits) => {
        fc.pre(![name, description, usage, ...benefits].some((t) => t.includes('\u0000')));
        const edited = editProductText(scrubs, { name, description, usage, benefits });
        const data = productData(edited);
        expect(data).toMatchObject({ id: 3, likes: 57, name, description, usage, benefits, sku: 'AUR-SCRB-SET' });
      }),
      { numRuns: 300 },
    );
  });
});

describe('what a save changed, in words', () => {
  it('says a price in dollars, a stock change, a short text and a list', () => {
    expect(summariseChange(scrubs, editProductText(scrubs, { price: 47 }))).toBe('price $45.00 → $47.00');
    expect(summariseChange(scrubs, editProductText(scrubs, { inStock: false, name: 'Clinical Scrub Set' }))).toBe(
      'name “Clinical Scrubs” → “Clinical Scrub Set”; out of stock',
    );
    expect(summariseChange(scrubs, editProductText(scrubs, { sizes: ['S', 'M', 'L', 'XL', 'XXL'] }))).toBe('sizes: removed “XS”');
    expect(summariseChange(scrubs, editProductText(scrubs, { description: 'Short now.' }))).toBe('description changed');
    expect(summariseChange(scrubs, scrubs)).toBe('no change');
    const finalSale = editProductText(scrubs, { finalSale: true });
    expect(summariseChange(scrubs, finalSale)).toBe('marked final sale');
    expect(summariseChange(finalSale, editProductText(finalSale, { finalSale: false }))).toBe('no longer final sale');
    // A file without the field is not final sale: saving false into it writes nothing.
    expect(editProductText(scrubs, { finalSale: false })).toBe(scrubs);
  });

  it('says what happened to the pictures: put in order, added, taken away, described anew', () => {
    const images = (productData(scrubs)?.images ?? []) as { src: string; alt: string }[];
    const [a, b, c] = images;
    if (!a || !b || !c) throw new Error('the scrubs have three pictures');
    const with_ = (list: typeof images) => summariseChange(scrubs, editProductText(scrubs, { images: list }));
    expect(with_([b, a, c])).toBe('pictures reordered');
    expect(with_([a, b])).toBe('pictures: removed clinical-scrubs-detail.svg');
    expect(with_([a, b, c, { src: './images/new-1a2b.png', alt: 'Side' }])).toBe('pictures: added new-1a2b.png');
    expect(with_([a, { ...b, alt: 'Blue scrubs, front' }, c])).toBe('pictures: picture 2’s description changed');
    expect(with_([c, { ...a, alt: 'Front' }])).toBe(
      'pictures: removed clinical-scrubs-blue.svg, picture 2’s description changed, reordered',
    );
  });
});
