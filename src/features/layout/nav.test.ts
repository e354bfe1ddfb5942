import { describe, expect, it } from 'vitest';
import { isCurrent, navLinks } from './nav';

describe('header navigation', () => {
  it('shows Home, Collections, About and Contact to guests', () => {
    expect(navLinks(false).map((l) => l.label)).toEqual(['Home', 'Collections', 'About', 'Contact']);
  });

  it('adds My Orders and Wishlist for a signed-in shopper', () => {
    expect(navLinks(true).map((l) => l.label)).toEqual(['Home', 'Collections', 'My Orders', 'Wishlist', 'About', 'Contact']);
    expect(navLinks(true, true).map((l) => l.label)).toEqual([
      'Home',
      'Collections',
      'My Orders',
      'Wishlist',
      'About',
      'Contact',
      'Admin',
    ]);
  });

  it('marks the current page', () => {
    const [home, collections] = navLinks(false);
    if (!home || !collections) throw new Error('missing links');
    expect(isCurrent(home, '/')).toBe(true);
    expect(isCurrent(home, '/about')).toBe(false);
    expect(isCurrent(collections, '/')).toBe(false);
  });
});
