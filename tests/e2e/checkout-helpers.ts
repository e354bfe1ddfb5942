import { randomBytes } from 'node:crypto';
import { expect, type Page } from '@playwright/test';
import { openCart } from './cart-helpers';

// The checkout's steps as a shopper takes them in the drawer; shared by checkout.spec.ts (the test processor) and
// stripe.spec.ts (Stripe's Payment Element). The same steps through the API are in purchase.ts.

export interface Shopper {
  name: string;
  email: string;
  address: string;
  city: string;
  state: string;
  zip: string;
}

export const shopper = (name = 'Grace Hopper', state = 'Georgia', city = 'Savannah', zip = '31401'): Shopper => ({
  name,
  email: `${name.split(' ')[0]?.toLowerCase()}.${randomBytes(4).toString('hex')}@example.com`,
  address: '12 Bull St',
  city,
  state,
  zip,
});

/** From the cart drawer: Checkout, then the address stage filled in and continued. */
export async function checkoutTo(page: Page, who: Shopper) {
  const drawer = await openCart(page);
  await drawer.getByRole('button', { name: 'Checkout' }).click();
  const checkout = page.getByRole('dialog', { name: 'Checkout' });
  const form = checkout.getByRole('form', { name: 'Shipping address' });
  await expect(form).toBeVisible();
  const cont = form.getByRole('button', { name: 'Continue' });
  await expect(cont).toBeDisabled();
  await form.getByLabel('Full name').fill(who.name);
  await form.getByLabel('Email').fill(who.email);
  await form.getByLabel('Street address').fill(who.address);
  await form.getByLabel('City').fill(who.city);
  await form.getByLabel('State').selectOption({ label: who.state });
  await expect(cont).toBeDisabled();
  await form.getByLabel('ZIP code').fill(who.zip);
  await cont.click();
  await expect(checkout.getByRole('heading', { name: 'Shipping and payment' })).toBeVisible();
  return checkout;
}
