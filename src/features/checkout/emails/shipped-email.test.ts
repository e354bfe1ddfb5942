import { describe, expect, it } from 'vitest';
import { fixtureLink, fixtureOrder } from './fixtures/order';
import { renderShippedEmail } from './shipped-email.server';

describe('the shipped e-mail', () => {
  it('says the order has shipped, with its number in the subject', async () => {
    const mail = await renderShippedEmail(fixtureOrder, fixtureOrder.customerEmail, fixtureLink);
    expect(mail.to).toBe('grace@example.com');
    expect(mail.subject).toBe('Your Aurelia order ORD-00ABCD has shipped');
    expect(mail.text).toMatch(
      /^Good news, Grace <script>alert\("hi"\)<\/script> Hopper: we have shipped your order ORD-00ABCD\./,
    );
  });

  it('gives the tracking number, linked when the carrier has a page, and the estimated delivery', async () => {
    const { html, text } = await renderShippedEmail(fixtureOrder, fixtureOrder.customerEmail, fixtureLink);
    expect(html).toContain('href="https://tracking.example/TEST123456789012345678"');
    expect(text).toContain('Tracking number: TEST123456789012345678 (https://tracking.example/TEST123456789012345678)');
    expect(text).toContain('Estimated delivery: Friday, November 27');
    const noPage = await renderShippedEmail(
      { ...fixtureOrder, tracking: { number: 'TEST123456789012345678', url: null } },
      fixtureOrder.customerEmail,
      fixtureLink,
    );
    expect(noPage.html).toContain('TEST123456789012345678');
    expect(noPage.html).not.toContain('tracking.example');
    const none = await renderShippedEmail({ ...fixtureOrder, tracking: null }, fixtureOrder.customerEmail, null);
    expect(none.text).toContain('The carrier has not given a tracking number for this parcel.');
    expect(none.html).not.toContain('View your order');
  });

  it('shows what the shopper typed as text, never as markup', async () => {
    const { html, text } = await renderShippedEmail(fixtureOrder, fixtureOrder.customerEmail, fixtureLink);
    expect(html).not.toMatch(/<script|<img/i);
    expect(html).toContain('Grace &lt;img src=x onerror=alert(1)&gt; Hopper');
    expect(text).toContain('2 × Clinical Scrubs (powder-blue, M)');
    expect(html).toContain(`href="${fixtureLink}"`);
  });
});
