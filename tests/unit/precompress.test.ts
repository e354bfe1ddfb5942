import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { minifySvgs, optimiseBuild, precompress } from '../../scripts/precompress.mjs';

// What the build adds to dist/client (scripts/precompress.mjs, run by the aurelia:precompress integration): minified
// SVG pictures, and brotli and gzip files beside every text file worth compressing.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'aurelia-precompress-'));
  mkdirSync(join(dir, '_astro'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const page = `<!DOCTYPE html><html><body>${'<p>Vitamin C body cream, 200 ml.</p>\n'.repeat(100)}</body></html>`;
const picture = `<?xml version="1.0"?>
<!-- drawn by hand -->
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 800 800" width="800" height="800" role="img" aria-labelledby="jar-t">
  <title id="jar-t">A jar of cream</title>
  <defs>
    <linearGradient id="jar-lid" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ffffff"/><stop offset="1" stop-color="#c1ccd6"/></linearGradient>
    <linearGradient id="jar-unused"><stop offset="0" stop-color="#000000"/></linearGradient>
  </defs>
  <rect x="100.123456" y="100" width="600" height="600" fill="url(#jar-lid)"/>
  ${'<circle cx="400" cy="400" r="10" fill="#9a3f1c"/>\n  '.repeat(30)}
</svg>
`;

describe('precompressing the build', () => {
  it('writes brotli and gzip files beside text files over 1 KB, which decode to the file', async () => {
    writeFileSync(join(dir, 'index.html'), page);
    writeFileSync(join(dir, '_astro', 'app.js'), `export const x = ${JSON.stringify('a'.repeat(5000))};`);
    const totals = await precompress(dir);
    expect(totals.files).toBe(2);
    for (const file of ['index.html', '_astro/app.js']) {
      const original = readFileSync(join(dir, file));
      const br = readFileSync(join(dir, `${file}.br`));
      const gz = readFileSync(join(dir, `${file}.gz`));
      expect(brotliDecompressSync(br).equals(original), file).toBe(true);
      expect(gunzipSync(gz).equals(original), file).toBe(true);
      expect(br.length).toBeLessThan(gz.length);
      // Every encoding of a file says the same Last-Modified.
      expect(statSync(join(dir, `${file}.br`)).mtime.toUTCString()).toBe(statSync(join(dir, file)).mtime.toUTCString());
    }
  });

  it('leaves alone small files, pictures other than SVG, and files compression would not make smaller', async () => {
    writeFileSync(join(dir, 'robots.txt'), 'User-agent: *\nAllow: /\n');
    writeFileSync(join(dir, 'photo.png'), randomBytes(4000));
    // Random bytes written as a text file: nothing to gain.
    writeFileSync(join(dir, 'noise.txt'), randomBytes(4000));
    expect((await precompress(dir)).files).toBe(0);
    for (const file of ['robots.txt', 'photo.png', 'noise.txt'])
      for (const suffix of ['.br', '.gz']) expect(existsSync(join(dir, `${file}${suffix}`)), file + suffix).toBe(false);
  });
});

describe('minifying the SVG pictures', () => {
  it('takes out comments and blanks, and keeps the viewBox, role, ids and what references them', async () => {
    writeFileSync(join(dir, '_astro', 'jar.svg'), picture);
    const totals = await minifySvgs(dir);
    const min = readFileSync(join(dir, '_astro', 'jar.svg'), 'utf8');
    expect(totals.after).toBeLessThan(totals.before);
    expect(min).not.toContain('drawn by hand');
    expect(min).not.toMatch(/>\s+</);
    expect(min).toContain('viewBox="0 0 800 800"');
    expect(min).toContain('role="img"');
    expect(min).toContain('aria-labelledby="jar-t"');
    expect(min).toContain('<title id="jar-t">A jar of cream</title>');
    expect(min).toContain('id="jar-lid"');
    expect(min).toContain('url(#jar-lid)');
    // Five decimals kept: nothing a screen would show differently is rounded away.
    expect(min).toContain('100.12346');
  });

  it('takes out script, also under another prefix, and event handlers (the upload check and the policy come first)', async () => {
    const svg = 'http://www.w3.org/2000/svg';
    writeFileSync(
      join(dir, '_astro', 'evil.svg'),
      picture.replace(
        '</svg>',
        `<script>alert(1)</script><a.b:script xmlns:a.b="${svg}">alert(2)</a.b:script><circle r="4" onload="alert(3)"/></svg>`,
      ),
    );
    await minifySvgs(dir);
    const min = readFileSync(join(dir, '_astro', 'evil.svg'), 'utf8');
    expect(min).not.toMatch(/script|onload|alert/);
    expect(min).toContain('url(#jar-lid)');
  });

  it('runs before precompression, so the compressed files are of the minified picture', async () => {
    writeFileSync(join(dir, '_astro', 'jar.svg'), picture);
    expect(await optimiseBuild(dir)).toMatch(/^1 SVG pictures minified .*; 1 text files precompressed/);
    const min = readFileSync(join(dir, '_astro', 'jar.svg'));
    expect(brotliDecompressSync(readFileSync(join(dir, '_astro', 'jar.svg.br'))).equals(min)).toBe(true);
  });
});
