// @ts-check
// The header's signed-in links (My Orders, Wishlist) and the space its greeting takes would otherwise appear only once
// the server has said who is signed in, after the page is painted, moving the rest of the header (layout shift). This
// script, inlined in every page's <head>, marks <html data-signed-in> before the first paint when this browser's last
// known answer was "signed in"; the CSS then lays the header out for a signed-in shopper from the start.
// session-hint.ts keeps the mark (and the cookie) in step with the server's answers. A cookie rather than local storage
// because Lighthouse (and a shopper's "clear site data except cookies") resets storage but keeps the session cookie.
// It is a string, not a function, because the Content-Security-Policy allows it by the hash of these exact bytes.

/**
 * The cookie: `aurelia_signed_in=1` while this browser's shopper was last known to be signed in, `2` when that
 * shopper is an admin (the header then shows its Admin link, <html data-admin>). Not a secret: the server ignores it.
 */
export const SIGNED_IN_COOKIE = 'aurelia_signed_in';

export const SIGNED_IN_HINT_SCRIPT = `{const h=/(^|; )${SIGNED_IN_COOKIE}=([12])/.exec(document.cookie),e=document.documentElement;if(h){e.setAttribute('data-signed-in','');if(h[2]==='2')e.setAttribute('data-admin','')}}`;
