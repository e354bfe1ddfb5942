import { describe, expect, it } from 'vitest';
import { type ReturnEmailData, renderReturnEmail } from './return-email.server';

const data: ReturnEmailData = {
  number: 'RMA-1001',
  kind: 'return',
  orderId: '3f2a9c4e-1b7d-4e8a-9c0f-5d6e7f8a9b3c',
  customerName: 'Ada Lovelace',
  reason: 'skin',
  declineReason: null,
  items: [{ name: 'Vitamin C Body Butter', variant: null, quantity: 2, condition: null }],
  label: { href: 'https://shop.example/api/returns/x/label?token=t', trackingNumber: 'TEST123', test: true },
  refundedCents: 5227,
};
const link = 'https://shop.example/order?token=t';

describe('the return e-mails', () => {
  it('say each step in words, with the return number, the items and the reason', async () => {
    const requested = await renderReturnEmail(data, 'requested', 'ada@example.com', link);
    expect(requested.subject).toBe('Your Aurelia return RMA-1001: request received');
    expect(requested.text).toContain('Your return number is RMA-1001.');
    expect(requested.text).toContain('2 × Vitamin C Body Butter');
    expect(requested.text).toContain('Reason: Did not suit my skin or hair');
    expect(requested.text).toContain(`See your order: ${link}`);
    expect(requested.html).toContain('View your order');

    const approved = await renderReturnEmail(data, 'approved', 'ada@example.com', link);
    expect(approved.subject).toBe('Your Aurelia return RMA-1001 is approved: your return label');
    expect(approved.text).toContain('Your return label: https://shop.example/api/returns/x/label?token=t');
    expect(approved.text).toContain('the label is a TEST label, not valid postage');
    expect(approved.html).toContain('Print the return label');

    const refunded = await renderReturnEmail(data, 'refunded', 'ada@example.com', link);
    expect(refunded.subject).toBe('Your Aurelia return RMA-1001: $52.27 refunded');
    expect(refunded.text).toContain('We have refunded $52.27 to your card for return RMA-1001');

    const declined = await renderReturnEmail(
      { ...data, declineReason: '<b>Opened</b> and used.' },
      'declined',
      'ada@example.com',
      link,
    );
    expect(declined.subject).toBe('Your Aurelia return RMA-1001 was declined');
    expect(declined.text).toContain('Our reason: <b>Opened</b> and used.');
    // What the owner typed is text in the HTML, never markup.
    expect(declined.html).not.toContain('<b>Opened</b>');
    expect(declined.html).toContain('&lt;b&gt;Opened&lt;/b&gt;');
  });

  it('tell an exchange as one: what comes instead, and the replacement order once it is sent', async () => {
    const exchange: ReturnEmailData = {
      ...data,
      kind: 'exchange',
      items: [{ name: 'Clinical Scrubs', variant: 'blue, M', quantity: 1, condition: null, exchangeFor: 'grey, L' }],
      replacementNumber: 'ORD-7F3A2C',
    };
    const requested = await renderReturnEmail(exchange, 'requested', 'ada@example.com', link);
    expect(requested.text).toContain('We have your request to exchange the items below');
    expect(requested.text).toContain('1 × Clinical Scrubs (blue, M) for grey, L');
    const sent = await renderReturnEmail(exchange, 'exchanged', 'ada@example.com', link);
    expect(sent.subject).toBe('Your Aurelia return RMA-1001: your replacement is on its way');
    expect(sent.text).toContain('it is order ORD-7F3A2C, at no charge.');
  });
});
