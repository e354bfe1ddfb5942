import { Link } from '@react-email/link';
import { render } from '@react-email/render';
import { Section } from '@react-email/section';
import { Text } from '@react-email/text';
import { CONTACT } from '@/lib/contact';
import type { MailMessage } from '@/server/mail/mail.port';
import { orderNumber, shipToLines } from '../../orders/orders';
import { CallToAction, COLORS, ContactFooter, Divider, EmailLayout, Eyebrow, Intro, muted, text } from './email-layout.server';
import { deliveryDay, Items, type OrderEmailData, variantOf } from './order-emails.server';

// The e-mail a shopper gets when the shop marks their order shipped (in the admin): the tracking number (linked
// when the carrier has a tracking page), where it goes and what is in it. Queued once per order through the outbox.

function Tracking({ order }: { order: OrderEmailData }) {
  return (
    <Section>
      <Eyebrow>Tracking</Eyebrow>
      {order.tracking ? (
        <Text style={text}>
          {`${order.shippingService} · tracking number `}
          {order.tracking.url ? (
            <Link href={order.tracking.url} style={{ color: COLORS.accent }}>
              {order.tracking.number}
            </Link>
          ) : (
            <strong>{order.tracking.number}</strong>
          )}
        </Text>
      ) : (
        <Text style={text}>{`${order.shippingService}. The carrier has not given a tracking number for this parcel.`}</Text>
      )}
      {order.estimatedDelivery && (
        <Text style={{ ...muted, marginTop: '4px' }}>{`Estimated delivery ${deliveryDay(order.estimatedDelivery)}`}</Text>
      )}
      <Text style={{ ...muted, marginTop: '16px' }}>{`To ${shipToLines(order.address).join(', ')}`}</Text>
    </Section>
  );
}

/** The shipped notice: the parcel is on its way, with its tracking. */
export function ShippedEmail({ order, link }: { order: OrderEmailData; link: string | null }) {
  const number = orderNumber(order.id);
  return (
    <EmailLayout
      preview={`Order ${number} is on its way${order.tracking ? `: tracking number ${order.tracking.number}` : ''}.`}
      footer={<ContactFooter />}
    >
      <Intro title="Your order is on its way.">
        <Text style={text}>{`Good news, ${order.customerName}: we have shipped your order ${number}.`}</Text>
        {link && <CallToAction href={link} label="View your order" />}
      </Intro>
      <Divider />
      <Tracking order={order} />
      <Divider />
      <Items order={order} title="In this parcel" />
    </EmailLayout>
  );
}

/** The plain-text part, written for reading. */
export function shippedEmailText(order: OrderEmailData, link: string | null): string {
  const number = orderNumber(order.id);
  const tracking = order.tracking
    ? `${order.shippingService}. Tracking number: ${order.tracking.number}${order.tracking.url ? ` (${order.tracking.url})` : ''}`
    : `${order.shippingService}. The carrier has not given a tracking number for this parcel.`;
  return [
    [
      `Good news, ${order.customerName}: we have shipped your order ${number}.`,
      ...(link ? [`See your order: ${link}`] : []),
    ].join('\n\n'),
    `TRACKING\n${tracking}${order.estimatedDelivery ? `\nEstimated delivery: ${deliveryDay(order.estimatedDelivery)}` : ''}`,
    `SHIPS TO\n${shipToLines(order.address).join('\n')}`,
    `IN THIS PARCEL\n${order.items.map((i) => `${i.quantity} × ${i.name}${variantOf(i) ? ` (${variantOf(i)})` : ''}`).join('\n')}`,
    `Questions about your order? Write to ${CONTACT.email} or call ${CONTACT.phone}, ${CONTACT.hours}.\n\nAurelia · Atlanta, Georgia`,
  ].join('\n\n');
}

/** The shipped e-mail as a message for the mail port. */
export async function renderShippedEmail(order: OrderEmailData, to: string, link: string | null): Promise<MailMessage> {
  const html = await render(<ShippedEmail order={order} link={link} />);
  return { to, subject: `Your Aurelia order ${orderNumber(order.id)} has shipped`, html, text: shippedEmailText(order, link) };
}
