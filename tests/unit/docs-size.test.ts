/**
 * The docs stay readable in one sitting: the README at most 2,000 words (what the shop is, the two commands, the
 * configuration table, the layout, links), docs/architecture.md at most 3,000 (the map, one request, where a file
 * goes, the rules), and each decision record at most 500, stating the decision as it stands, with its Date, Status and
 * Supersedes / Superseded by lines; its history is in git. Past those sizes a newcomer stops reading, and docs grow one
 * true paragraph at a time. Detail goes in the topic guides (docs/operating.md, docs/performance.md…) or in the code's
 * own comments. And a relative link in the docs names a file that exists, so a moved or renamed file
 * is not left pointed at.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** As `wc -w` counts: runs of characters between whitespace. */
const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;

const markdownIn = (dir: string) =>
  readdirSync(join(root, dir))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `${dir}/${name}`);

const decisions = markdownIn('docs/decisions');

/** The files over their limit, each as "<file>: <words> words (at most <limit>)". */
function overLimit(files: string[], limit: number): string[] {
  return files
    .map((file) => ({ file, words: wordCount(read(file)) }))
    .filter(({ words }) => words > limit)
    .map(({ file, words }) => `${file}: ${words} words (at most ${limit})`);
}

/** A decision record's missing header lines, e.g. "docs/decisions/009-x.md: no Status: line". */
function missingHeaders(file: string, text: string): string[] {
  const wanted: [string, RegExp][] = [
    ['Date:', /^Date: \d{4}-\d{2}-\d{2}\b/m],
    ['Status:', /^Status: \S/m],
    ['Supersedes:', /^Supersedes: \S/m],
    ['Superseded by:', /\bSuperseded by:\s+\S/],
  ];
  return wanted.filter(([, pattern]) => !pattern.test(text)).map(([line]) => `${file}: no ${line} line`);
}

/**
 * The targets of a file's relative Markdown links (`[text](target)` and `[label]: target`), without their #fragment,
 * leaving out web addresses, in-page anchors, and anything in code (fenced blocks and `inline code`).
 */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '');
  const targets = [
    ...[...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] as string),
    ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1] as string),
  ];
  return targets
    .filter((target) => !/^([a-z][a-z0-9+.-]*:|#)/i.test(target))
    .map((target) => decodeURIComponent(target.replace(/[#?].*$/, '')))
    .filter(Boolean);
}

/** The relative links whose target does not exist, each as "<file>: <target>", from each file's path and text. */
function brokenLinks(files: [string, string][]): string[] {
  return files.flatMap(([file, text]) =>
    relativeLinks(text)
      .filter((target) => !existsSync(resolve(root, dirname(file), target)))
      .map((target) => `${file}: ${target}`),
  );
}

describe('the docs stay short', () => {
  it('counts words as wc -w does', () => {
    expect(wordCount('  one two\tthree\n\nfour — five\n')).toBe(6);
    expect(wordCount('')).toBe(0);
  });

  it('keeps the README at 2,000 words or fewer', () => {
    expect(overLimit(['README.md'], 2000)).toEqual([]);
  });

  it('keeps docs/architecture.md at 3,000 words or fewer', () => {
    expect(overLimit(['docs/architecture.md'], 3000)).toEqual([]);
  });

  it('keeps every decision record at 500 words or fewer', () => {
    expect(decisions.length).toBeGreaterThan(20);
    expect(overLimit(decisions, 500)).toEqual([]);
  });

  it('gives every decision record its Date, Status, Supersedes and Superseded by lines', () => {
    expect(decisions.flatMap((file) => missingHeaders(file, read(file)))).toEqual([]);
  });

  it('tells a record without its lines', () => {
    expect(missingHeaders('x.md', '# x\n\nDate: 2026-12-01\n\nStatus: accepted\n')).toEqual([
      'x.md: no Supersedes: line',
      'x.md: no Superseded by: line',
    ]);
    expect(missingHeaders('x.md', 'Date: 2026-12-01\nStatus: accepted\nSupersedes: none. Superseded by: none.\n')).toEqual([]);
  });
});

describe("the docs' relative links", () => {
  const files = ['README.md', ...markdownIn('docs'), ...decisions];

  it('point at files that exist', () => {
    expect(files.flatMap((file) => relativeLinks(read(file))).length).toBeGreaterThan(10);
    expect(brokenLinks(files.map((file) => [file, read(file)]))).toEqual([]);
  });

  it('finds links in prose and leaves out web addresses, anchors and code', () => {
    const markdown = [
      'See [the map](docs/architecture.md#the-map), [decisions](docs/decisions/) and [x][ref].',
      '[ref]: ./docs/x%20y.md',
      'Not [a site](https://example.com), [here](#top), `[code](no.md)` or:',
      '```md',
      '[fenced](no.md)',
      '```',
    ].join('\n');
    expect(relativeLinks(markdown).sort()).toEqual(['./docs/x y.md', 'docs/architecture.md', 'docs/decisions/']);
    expect(brokenLinks([['docs/x.md', '[gone](no-such-file.md), [here](../README.md)']])).toEqual(['docs/x.md: no-such-file.md']);
  });
});
