import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { carryAssets } from '../../scripts/serve.mjs';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function build(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'carry-'));
  dirs.push(dir);
  mkdirSync(join(dir, '_astro'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, '_astro', name), text);
  return dir;
}

describe('switching builds keeps the files pages already open ask for', () => {
  it('copies the old build’s fingerprinted files the new one lacks, and leaves the new one’s own as they are', () => {
    const old = build({ 'islands.A1.js': 'old islands', 'scrubs.B2.svg': 'old picture', 'scrubs.B2.svg.br': 'br' });
    const next = build({ 'islands.A1.js': 'same name, same bytes', 'scrubs.C3.svg': 'new picture' });
    carryAssets(old, next);
    expect(readdirSync(join(next, '_astro')).sort()).toEqual([
      'islands.A1.js',
      'scrubs.B2.svg',
      'scrubs.B2.svg.br',
      'scrubs.C3.svg',
    ]);
    expect(readFileSync(join(next, '_astro', 'islands.A1.js'), 'utf8')).toBe('same name, same bytes');
    expect(readFileSync(join(next, '_astro', 'scrubs.B2.svg'), 'utf8')).toBe('old picture');
  });

  it('does nothing when the old build has no such files', () => {
    const next = build({ 'a.js': 'a' });
    carryAssets(join(next, 'missing'), next);
    expect(readdirSync(join(next, '_astro'))).toEqual(['a.js']);
  });
});
