import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FAVICON_URL } from './favicon';

describe('the icon written into every page', () => {
  it('is the SVG of public/favicon.svg, with nothing an attribute or a URL would read otherwise', () => {
    const file = readFileSync(new URL('../../public/favicon.svg', import.meta.url), 'utf8').trim();
    expect(FAVICON_URL.startsWith('data:image/svg+xml,')).toBe(true);
    const data = FAVICON_URL.slice('data:image/svg+xml,'.length);
    expect(data).not.toMatch(/["<>#&\n]/);
    expect(decodeURIComponent(data)).toBe(file.replaceAll('"', "'"));
  });
});
