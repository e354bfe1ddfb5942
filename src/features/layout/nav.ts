/** The mobile menu closes by itself this long after it opens (product spec). */
export const MOBILE_MENU_AUTOCLOSE_MS = 3000;

export interface NavLink {
  href: string;
  label: string;
  /** Shown only to a signed-in shopper. */
  signedInOnly?: true;
  /** Shown only to a signed-in admin. */
  adminOnly?: true;
}

/** Every header link in order; My Orders and Wishlist are only for a signed-in shopper (product spec). */
export const NAV_LINKS: readonly NavLink[] = [
  { href: '/', label: 'Home' },
  { href: '/#collections', label: 'Collections' },
  { href: '/orders', label: 'My Orders', signedInOnly: true },
  { href: '/wishlist', label: 'Wishlist', signedInOnly: true },
  { href: '/about', label: 'About' },
  { href: '/contact', label: 'Contact' },
  { href: '/admin', label: 'Admin', signedInOnly: true, adminOnly: true },
];

/** The header links a guest (false) or a signed-in shopper (true), and an admin, sees, in order. */
export function navLinks(signedIn: boolean, admin = false): NavLink[] {
  return NAV_LINKS.filter((link) => (signedIn || !link.signedInOnly) && (admin || !link.adminOnly));
}

/** Whether a link is the page being shown (Collections is a section of the home page, never "current"). */
export function isCurrent(link: NavLink, pathname: string): boolean {
  if (link.href.includes('#')) return false;
  return link.href === '/' ? pathname === '/' : pathname === link.href || pathname.startsWith(`${link.href}/`);
}
