// The payment this page opened, by its client secret, kept while the shopper moves between the checkout's stages:
// going back to the address or the cart and on to payment again updates that payment and its holds (stock, and a
// code's use) instead of opening another beside it, and the drawer's check of a code sets that payment's own use of
// it aside (a one-per-customer code is not "already used" by the shopper's own cart). A reload forgets it; the server
// reuses it only for the same shopper, before its order is recorded.
let secret: string | null = null;

export const openedPayment = (): string | null => secret;

/** Keeps the secret of the payment just opened (null: forget it). */
export function rememberPayment(clientSecret: string | null): void {
  secret = clientSecret;
}
