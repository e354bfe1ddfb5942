import { SIGNED_IN_COOKIE } from '@/lib/signed-in-hint.inline.mjs';

/**
 * Records whether the shopper is signed in, for the header's layout on this page (<html data-signed-in>) and on the
 * next one (read before the first paint by the inline script in signed-in-hint.inline.mjs). The server ignores it.
 */
export function rememberSignedIn(signedIn: boolean): void {
  if (typeof document === 'undefined') return;
  document.documentElement.toggleAttribute('data-signed-in', signedIn);
  const secure = window.location.protocol === 'https:' ? '; Secure' : '';
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is not in every browser the shop supports (Firefox).
  document.cookie = `${SIGNED_IN_COOKIE}=${signedIn ? '1; Max-Age=2592000' : '; Max-Age=0'}; Path=/; SameSite=Lax${secure}`;
}
