import { render } from '@react-email/render';
import { Text } from '@react-email/text';
import { CONTACT } from '@/lib/contact';
import type { MailMessage } from '@/server/mail/mail.port';
import { formatPrice } from '../../catalogue/catalogue';
import { orderNumber } from '../../orders/orders';
import { CallToAction, ContactFooter, Divider, EmailLayout, Intro, muted, text } from './email-layout.server';
import { Items, type OrderEmailData } from './order-emails.server';

// What a shopper is told when the shop refunds or cancels their order (so the money they see come back is never a surprise). Queued once
// per refund, or once per cancellation (whose refund it names), through the outbox.

/** A refund of part or all of the order, or the order cancelled (with what was refunded for it). */
export type OrderChange =
  | { kind: 'refund'; amountCents: number; refundedCents: number }
  | { kind: 'cancel'; refundedCents: number }
  /** Paid after the items had sold out: never placed, refunded in full. `items` names what was missing. */
  | { kind: 'sold-out'; refundedCents: number; items: string[] };

const SETTLES = 'It can take 5 to 10 business days to appear on your statement.';

function lines(order: OrderEmailData, change: OrderChange): string[] {
  const number = orderNumber(order.id);
  if (change.kind === 'sold-out') {
    return [
      `We are sorry, ${order.customerName}: ${change.items.join(', ')} sold out while your payment for order ${number} was going through, so we could not place it.`,
      `${formatPrice(change.refundedCents)}, all you paid, is on its way back to your card. ${SETTLES}`,
    ];
  }
  if (change.kind === 'cancel') {
    return [
      `We have cancelled your order ${number}, ${order.customerName}.`,
      change.refundedCents > 0
        ? `${formatPrice(change.refundedCents)} is on its way back to your card. ${SETTLES}`
        : 'Nothing was charged for it that needs to be refunded.',
    ];
  }
  return [
    `We have refunded ${formatPrice(change.amountCents)} to your card for order ${number}, ${order.customerName}. ${SETTLES}`,
    ...(change.refundedCents > change.amountCents
      ? [`In all, ${formatPrice(change.refundedCents)} of ${formatPrice(order.totalCents)} has been refunded for this order.`]
      : []),
  ];
}

function subject(order: OrderEmailData, change: OrderChange): string {
  const number = orderNumber(order.id);
  if (change.kind === 'sold-out') return `Your Aurelia order ${number} could not be placed: refunded in full`;
  return change.kind === 'cancel'
    ? `Your Aurelia order ${number} is cancelled`
    : `Your Aurelia order ${number}: ${formatPrice(change.amountCents)} refunded`;
}

export function RefundEmail({ order, change, link }: { order: OrderEmailData; change: OrderChange; link: string | null }) {
  const [first, ...rest] = lines(order, change);
  return (
    <EmailLayout preview={subject(order, change)} footer={<ContactFooter />}>
      <Intro title={change.kind === 'refund' ? 'Your refund is on its way.' : 'Your order is cancelled.'}>
        <Text style={text}>{first}</Text>
        {rest.map((line) => (
          <Text key={line} style={{ ...muted, marginTop: '8px' }}>
            {line}
          </Text>
        ))}
        {link && <CallToAction href={link} label="View your order" />}
      </Intro>
      <Divider />
      <Items order={order} title="The order" />
    </EmailLayout>
  );
}

/** The refund or cancellation e-mail as a message for the mail port (a plain-text part written for reading). */
export async function renderRefundEmail(
  order: OrderEmailData,
  change: OrderChange,
  to: string,
  link: string | null,
): Promise<MailMessage> {
  const html = await render(<RefundEmail order={order} change={change} link={link} />);
  const textPart = [
    lines(order, change).join('\n\n'),
    ...(link ? [`See your order: ${link}`] : []),
    `Questions? Write to ${CONTACT.email} or call ${CONTACT.phone}, ${CONTACT.hours}.\n\nAurelia · Atlanta, Georgia`,
  ].join('\n\n');
  return { to, subject: subject(order, change), html, text: textPart };
}
