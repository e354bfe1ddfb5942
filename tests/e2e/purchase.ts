import { type APIRequestContext, expect } from '@playwright/test';

// Buying through the shop's own endpoints, as the checkout drawer does: rates quoted, a payment opened for the first
// rate, paid with a TEST MODE card, then confirmed. Used where a test needs real orders rather than the drawer itself.

export interface Line {
  productId: number;
  quantity?: number;
  selectedColor?: string | null;
  selectedSize?: string | null;
}

export const usAddress = (name: string, city: string, state: string, zip: string) => ({
  name,
  email: `${name.toLowerCase().replace(/\W+/g, '.')}@example.com`,
  street1: '5 Elm St',
  city,
  state,
  zip,
  country: 'US',
});

type Address = ReturnType<typeof usAddress>;

/** A checkout opened through the API: the rates quoted, then a payment for the first rate (`amount` is ignored). */
export async function apiCheckout(request: APIRequestContext, origin: string, lines: Line[], address: Address) {
  const headers = { origin };
  const wire = lines.map((l) => ({
    productId: l.productId,
    quantity: l.quantity ?? 1,
    selectedColor: l.selectedColor ?? null,
    selectedSize: l.selectedSize ?? null,
  }));
  const quoted = await request.post('/api/shippo-rates', { headers, data: { toAddress: address, lines: wire } });
  expect(quoted.status()).toBe(200);
  const { rates } = (await quoted.json()) as { rates: { object_id: string; amount_cents: number }[] };
  const rate = rates[0];
  if (!rate) throw new Error('no rate');
  const intent = await request.post('/api/create-payment-intent', {
    headers,
    data: { lines: wire, address, rateId: rate.object_id, amount: 1 },
  });
  expect(intent.status()).toBe(200);
  const body = (await intent.json()) as {
    client_secret: string;
    paymentIntentId: string;
    amountCents: number;
    processor: { kind: 'test' } | { kind: 'stripe'; publishableKey: string };
  };
  return { headers, lines: wire, rate, ...body };
}

/** Pays a checkout with a TEST MODE card that succeeds. */
export async function payWithTestCard(request: APIRequestContext, checkout: Awaited<ReturnType<typeof apiCheckout>>) {
  const paid = await request.post('/api/test-payments/confirm', {
    headers: checkout.headers,
    data: { clientSecret: checkout.client_secret, number: '4242424242424242', expMonth: 12, expYear: 2034, cvc: '123' },
  });
  expect(paid.status()).toBe(200);
}

/** Buys `lines` for whoever `request` is signed in as (or a guest): the recorded order's id and total. */
export async function buy(
  request: APIRequestContext,
  origin: string,
  lines: Line[],
  address = usAddress('Ada', 'Austin', 'TX', '78701'),
) {
  const checkout = await apiCheckout(request, origin, lines, address);
  await payWithTestCard(request, checkout);
  const confirmed = await request.post('/api/orders/confirm', {
    headers: checkout.headers,
    data: { paymentIntentId: checkout.paymentIntentId },
  });
  expect(confirmed.status()).toBe(201);
  const { order } = (await confirmed.json()) as { order: { id: string } };
  return { id: order.id, totalCents: checkout.amountCents };
}
