/** The mobile menu closes by itself this long after it opens (spec section 9). */
export const MOBILE_MENU_AUTOCLOSE_MS = 3000;

export interface NavLink {
  href: string;
  label: string;
}

/** Header links in order; My Orders and Wishlist only for a signed-in shopper (spec section 2). */
export function navLinks(signedIn: boolean): NavLink[] {
  return [
    { href: '/', label: 'Home' },
    { href: '/#collections', label: 'Collections' },
    ...(signedIn
      ? [
          { href: '/orders', label: 'My Orders' },
          { href: '/wishlist', label: 'Wishlist' },
        ]
      : []),
    { href: '/about', label: 'About' },
    { href: '/contact', label: 'Contact' },
  ];
}

/** Whether a link is the page being shown (Collections is a section of the home page, never "current"). */
export function isCurrent(link: NavLink, pathname: string): boolean {
  if (link.href.includes('#')) return false;
  return link.href === '/' ? pathname === '/' : pathname === link.href || pathname.startsWith(`${link.href}/`);
}
