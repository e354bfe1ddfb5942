import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixtureDiscountedOrder, fixtureLink, fixtureOrder } from './fixtures/order';
import { type OrderEmailData, renderOrderEmail } from './order-emails.server';

const render = (audience: 'customer' | 'shop', order: OrderEmailData = fixtureOrder, link: string | null = fixtureLink) =>
  renderOrderEmail(order, audience, audience === 'customer' ? order.customerEmail : 'orders@shop.example', link);

describe.each(['customer', 'shop'] as const)('the %s order e-mail', (audience) => {
  it('keeps its subject', async () => {
    expect((await render(audience)).subject).toBe(
      audience === 'customer' ? 'Your Aurelia order ORD-00ABCD' : 'New order ORD-00ABCD: $130.35',
    );
  });

  it('shows what the shopper typed as text, never as markup', async () => {
    const { html, text } = await render(audience);
    expect(html).not.toMatch(/<script|<img/i);
    expect(html).toContain('Grace &lt;script&gt;alert(&quot;hi&quot;)&lt;/script&gt; Hopper');
    expect(html).toContain('Grace &lt;img src=x onerror=alert(1)&gt; Hopper');
    expect(html).toContain('12 Bull St &amp; Co &quot;Suite 3&quot;');
    // The plain-text part is not HTML: the name reads as typed.
    expect(text).toContain('Grace <script>alert("hi")</script> Hopper');
  });

  it('lists the items, the totals in dollars, the address and the delivery', async () => {
    const { html, text } = await render(audience);
    for (const part of ['Clinical Scrubs', 'powder-blue, M', '$90.00', 'Turmeric Face Soap', '$15.00', '$105.00', '$16.00']) {
      expect(html).toContain(part);
    }
    expect(html).toContain('$9.35');
    expect(html).toContain('$130.35');
    expect(html).toContain('Savannah, GA 31401');
    expect(html).toContain('Estimated delivery Friday, November 27');
    expect(text).toContain('2 × Clinical Scrubs (powder-blue, M): $90.00\n1 × Turmeric Face Soap: $15.00');
    expect(text).toContain('Subtotal: $105.00\nShipping (Standard Shipping): $16.00\nTax: $9.35\nTotal: $130.35');
    expect(html).toContain('12 Bull St &amp; Co &quot;Suite 3&quot;<br/>Apt &lt;4B&gt;<br/>Savannah, GA 31401');
    expect(text).toContain('12 Bull St & Co "Suite 3"\nApt <4B>\nSavannah, GA 31401\nUnited States');
    const noSuite = await render(audience, { ...fixtureOrder, address: { ...fixtureOrder.address, street2: '' } });
    expect(noSuite.text).toContain('12 Bull St & Co "Suite 3"\nSavannah, GA 31401\nUnited States');
    expect(text).toContain('Standard Shipping\nEstimated delivery: Friday, November 27');
  });

  it('marks a line bought as final sale, and only that line', async () => {
    const [scrubs, soap] = fixtureOrder.items;
    if (!scrubs || !soap) throw new Error('fixture items');
    const order = { ...fixtureOrder, items: [scrubs, { ...soap, finalSale: true }] };
    const { html, text } = await render(audience, order);
    expect(text).toContain(
      '2 × Clinical Scrubs (powder-blue, M): $90.00\n1 × Turmeric Face Soap: $15.00 · Final sale: cannot be returned',
    );
    expect(html).toContain('Qty 1 · Final sale: cannot be returned');
    expect(html.match(/Final sale/g)).toHaveLength(1);
  });

  it('says Free for free shipping and leaves out a delivery day the rate never promised', async () => {
    const { html, text } = await render(audience, { ...fixtureOrder, shippingCents: 0, estimatedDelivery: null });
    expect(text).toContain('Shipping (Standard Shipping): Free');
    expect(html).toContain('Free');
    expect(html).not.toContain('Estimated delivery');
    expect(text).not.toContain('Estimated delivery');
  });

  it('gives the offer and the code a line each, between the subtotal and the shipping, as the order recorded them', async () => {
    const { html, text } = await render(audience, fixtureDiscountedOrder);
    expect(text).toContain(
      'Subtotal: $105.00\nAutomatic offer: \u2212$5.25\nCode SAVE10: \u2212$9.98\nShipping (Standard Shipping): $16.00\nTax: $7.99\nTotal: $113.76',
    );
    const order = [
      'Subtotal',
      '$105.00',
      'Automatic offer',
      '\u2212$5.25',
      'Code SAVE10',
      '\u2212$9.98',
      'Shipping',
      '$7.99',
      '$113.76',
    ];
    // Each part found after the one before it, in the totals' table (the preview line above also names the total).
    let from = html.indexOf('Subtotal');
    for (const part of order) {
      const at = html.indexOf(part, from);
      expect(at, part).toBeGreaterThanOrEqual(from);
      from = at;
    }
    // Nothing discounted: no line, and no mention of a code.
    const plain = await render(audience);
    expect(plain.text).not.toMatch(/Code |Automatic offer/);
    expect(plain.html).not.toMatch(/Code |Automatic offer/);
  });

  it('says Free shipping on the line of a free-shipping code', async () => {
    const { text } = await render(audience, {
      ...fixtureOrder,
      discount: { code: 'SHIPFREE', discountCents: 0, offerCents: 0, freeShipping: true },
      shippingCents: 0,
      totalCents: 11_435,
    });
    expect(text).toContain(
      'Subtotal: $105.00\nCode SHIPFREE: Free shipping\nShipping (Standard Shipping): Free\nTax: $9.35\nTotal: $114.35',
    );
  });

  it('gives the tracking number and its link when known, and none before the label', async () => {
    const known = await render(audience);
    expect(known.html).toContain('href="https://tracking.example/TEST123456789012345678"');
    expect(known.text).toContain('Tracking number: TEST123456789012345678 (https://tracking.example/TEST123456789012345678)');

    const noPage = await render(audience, { ...fixtureOrder, tracking: { number: 'TEST123456789012345678', url: null } });
    expect(noPage.html).toContain('TEST123456789012345678');
    expect(noPage.html).not.toContain('tracking.example');
    expect(noPage.text).toMatch(/Tracking number: TEST123456789012345678$/m);

    const unknown = await render(audience, { ...fixtureOrder, tracking: null });
    expect(unknown.html).not.toContain('TEST123456789012345678');
    expect(unknown.text).not.toContain('Tracking number');
  });

  it('links to the order page, as a button and written out', async () => {
    const { html, text } = await render(audience);
    expect(html).toContain(`href="${fixtureLink}"`);
    expect(html).toContain(`>${fixtureLink}</a>`);
    expect(text).toContain(fixtureLink);
  });
});

describe('the two audiences', () => {
  it('thanks the shopper and gives them the shop’s contact details', async () => {
    const { html, text } = await render('customer');
    expect(text).toMatch(/^Thank you, Grace <script>alert\("hi"\)<\/script> Hopper\.\n\nYour order ORD-00ABCD is confirmed/);
    expect(text).toContain('Placed November 22, 2026');
    expect(html).toContain('View your order');
    expect(text).toContain(`See your order: ${fixtureLink}`);
    expect(html).toContain('href="mailto:hello@aurelia-care.com"');
  });

  it('tells the shop who ordered, with the whole order id', async () => {
    const { html, text } = await render('shop');
    expect(text).toContain('New order ORD-00ABCD: $130.35 from Grace <script>alert("hi")</script> Hopper <grace@example.com>');
    expect(text).toContain(`Order id ${fixtureOrder.id}`);
    expect(html).toContain('href="mailto:grace@example.com"');
    expect(html).toContain(fixtureOrder.id);
    expect(text).toContain(`Open the order: ${fixtureLink}`);
  });

  it('leaves the button out when a job carries no token for the shop', async () => {
    const { html, text } = await render('shop', fixtureOrder, null);
    expect(html).not.toContain('/order?token=');
    expect(text).not.toContain('Open the order');
  });
});

it('writes no HTML by hand: React escapes every value in the templates', () => {
  const dir = new URL('.', import.meta.url);
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.tsx'))) {
    expect(readFileSync(new URL(file, dir), 'utf8'), file).not.toContain('dangerouslySetInnerHTML');
  }
});
