import { describe, expect, it } from 'vitest';
import { pagePath } from './paths';

describe('pagePath', () => {
  it('gives one form of each page path', () => {
    expect(pagePath('/about.html')).toBe('/about');
    expect(pagePath('/product/8/')).toBe('/product/8');
    expect(pagePath('/index.html')).toBe('/');
    expect(pagePath('/')).toBe('/');
    expect(pagePath('/contact')).toBe('/contact');
  });
});
