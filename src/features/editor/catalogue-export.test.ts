import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unzip } from '../../../tests/db/unzip';
import { type CatalogueExport, checkedName, exportZip, UnsafeName, writeExport } from './catalogue-export.server';
import { zip } from './zip.server';

// The export's names and its .zip: only a product file's or a picture's name is ever written or zipped, so no name
// a database row or a crafted request could hold reaches outside content/products (decision 018).

const work = mkdtempSync(join(tmpdir(), 'aurelia-export-names-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const exported = (files: [string, string][], pictures: [string, Uint8Array][] = []): CatalogueExport => ({
  upTo: 1,
  files: new Map(files),
  pictures: new Map(pictures),
});

describe('the export’s names', () => {
  it.each([
    '../../src/pages/x.md',
    '../x.md',
    '/etc/passwd.md',
    'images/../../x.md',
    '..md',
    'a/b.md',
    'a\\b.md',
    '.hidden.md',
    'x.md\u0000.png',
    'X.MD',
  ])('refuses %j as a product file', (name) => {
    expect(() => checkedName(name, 'product')).toThrow(UnsafeName);
  });

  it.each(['../x.png', 'a/../../x.svg', '/x.png', 'x..png', '.x.png', 'x.png/'])('refuses %j as a picture', (name) => {
    expect(() => checkedName(name, 'picture')).toThrow(UnsafeName);
  });

  it('writes nothing at all when one name is not a product file’s', async () => {
    const dir = join(work, 'refused');
    await expect(
      writeExport(
        exported([
          ['01-ok.md', 'ok'],
          ['../escaped.md', 'no'],
        ]),
        dir,
      ),
    ).rejects.toThrow(UnsafeName);
    await expect(writeExport(exported([['01-ok.md', 'ok']], [['../../x.png', new Uint8Array([1])]]), dir)).rejects.toThrow(
      UnsafeName,
    );
    expect(readdirSync(work)).not.toContain('escaped.md');
    expect(() => readdirSync(dir)).toThrow();
    expect(() => exportZip(exported([['../x.md', 'no']]))).toThrow(UnsafeName);
  });

  it('writes only what differs, and says so', async () => {
    const dir = join(work, 'products');
    const first = await writeExport(
      exported(
        [
          ['01-a.md', 'a'],
          ['02-b.md', 'b'],
        ],
        [['p-1.png', new Uint8Array([1, 2])]],
      ),
      dir,
    );
    expect(first).toEqual({ written: ['01-a.md', '02-b.md', 'images/p-1.png'], unchanged: [] });
    const second = await writeExport(
      exported(
        [
          ['01-a.md', 'a'],
          ['02-b.md', 'b2'],
        ],
        [['p-1.png', new Uint8Array([1, 2])]],
      ),
      dir,
    );
    expect(second).toEqual({ written: ['02-b.md'], unchanged: ['01-a.md', 'images/p-1.png'] });
  });
});

describe('zip', () => {
  it('holds each file under content/products, byte for byte', () => {
    const text = '---\nname: “Rosé” oil\n---\nBody\n'.repeat(50);
    const picture = new Uint8Array(Array.from({ length: 3000 }, (_, i) => (i * 37) % 256));
    const bytes = exportZip(exported([['06-oil.md', text]], [['oil-abc123.png', picture]]), new Date('2026-12-10T12:34:56Z'));
    const entries = unzip(bytes);
    expect([...entries.keys()]).toEqual(['content/products/06-oil.md', 'content/products/images/oil-abc123.png']);
    expect(entries.get('content/products/06-oil.md')?.toString('utf8')).toBe(text);
    expect(new Uint8Array(entries.get('content/products/images/oil-abc123.png') ?? [])).toEqual(picture);
    // The end of the central directory counts both.
    expect(Buffer.from(bytes).readUInt16LE(bytes.length - 12)).toBe(2);
  });

  it('refuses a path that is absolute or climbs', () => {
    for (const path of ['/x', '../x', 'a/../b', 'a//b', './a'])
      expect(() => zip([{ path, bytes: new Uint8Array() }]), path).toThrow();
  });
});
