import { SIGNED_IN_COOKIE } from '@/lib/signed-in-hint.inline.mjs';

/**
 * Records whether the shopper is signed in, and an admin, for the header's layout on this page (<html data-signed-in>,
 * <html data-admin>) and on the next one (read before the first paint by the inline script in
 * signed-in-hint.inline.mjs). The server ignores it.
 */
export function rememberSignedIn(user: { admin?: true } | null): void {
  if (typeof document === 'undefined') return;
  document.documentElement.toggleAttribute('data-signed-in', user !== null);
  document.documentElement.toggleAttribute('data-admin', user?.admin === true);
  const secure = window.location.protocol === 'https:' ? '; Secure' : '';
  const value = user ? `${user.admin ? 2 : 1}; Max-Age=2592000` : '; Max-Age=0';
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is not in every browser the shop supports (Firefox).
  document.cookie = `${SIGNED_IN_COOKIE}=${value}; Path=/; SameSite=Lax${secure}`;
}
