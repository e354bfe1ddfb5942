/**
 * No file under src/ is over 500 lines: past that a file does more than one job (a read model, a route and a rollup;
 * a checkout's pricing and its recording), and the next change has to read all of them. Split it where its jobs part,
 * not at line 500.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');
const MAX_LINES = 500;

function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

describe('file size', () => {
  it(`keeps every file under src/ at ${MAX_LINES} lines or fewer`, () => {
    const files = filesUnder('src');
    expect(files.length).toBeGreaterThan(200);
    const long = files
      .map((file) => ({ file, lines: lineCount(readFileSync(join(root, file), 'utf8')) }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(long).toEqual([]);
  });
});
