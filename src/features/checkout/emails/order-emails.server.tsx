import { Column } from '@react-email/column';
import { Link } from '@react-email/link';
import { render } from '@react-email/render';
import { Row } from '@react-email/row';
import { Section } from '@react-email/section';
import { Text } from '@react-email/text';
import { Fragment } from 'react';
import { formatPrice } from '@/features/catalogue/catalogue';
import { FINAL_SALE } from '@/features/catalogue/final-sale';
import { CONTACT } from '@/lib/contact';
import type { MailMessage } from '@/server/mail/mail.port';
import { discountLines, type OrderDiscount } from '../../orders/discount-lines';
import { orderNumber, type ShipTo, shipToLines, variantLabel } from '../../orders/orders';
import {
  AmountRow,
  CallToAction,
  COLORS,
  ContactFooter,
  Divider,
  EmailLayout,
  Eyebrow,
  Intro,
  muted,
  text,
} from './email-layout.server';

// The order's two e-mails (decision 004): the confirmation to the shopper and the notice to the shop. Both are React
// Email templates rendered on the server by the outbox job; React escapes every value, so a name like
// `<script>` arrives as text. Nothing here is imported by an island.

/** What the order e-mails show, in the app's terms (money in integer cents, dates as YYYY-MM-DD or ISO). */
export interface OrderEmailData {
  id: string;
  placedAt: string;
  customerName: string;
  customerEmail: string;
  /** `finalSale`: bought as final sale, so it cannot be returned (said beside the line). */
  items: { name: string; color: string | null; size: string | null; quantity: number; priceCents: number; finalSale?: boolean }[];
  subtotalCents: number;
  /** The code and the automatic offer as the order recorded them (null: nothing discounted). */
  discount: OrderDiscount | null;
  shippingCents: number;
  taxCents: number;
  totalCents: number;
  address: ShipTo;
  shippingService: string;
  /** The day the rate promised, or null (the fallback rate promises none). */
  estimatedDelivery: string | null;
  /** Known once the label is bought; the URL only when the carrier has a tracking page. */
  tracking: { number: string; url: string | null } | null;
}

export type OrderEmailAudience = 'customer' | 'shop';

const longDate = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' });
const weekdayDate = new Intl.DateTimeFormat('en-US', { weekday: 'long', month: 'long', day: 'numeric', timeZone: 'UTC' });

/** 'November 22, 2026' for an ISO timestamp or date, in UTC like the order page. */
function placedOn(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : longDate.format(date);
}

/** 'Friday, November 27' for a YYYY-MM-DD date (a calendar day, so read in UTC). */
export function deliveryDay(day: string): string {
  const date = new Date(`${day.slice(0, 10)}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? day : weekdayDate.format(date);
}

type OrderEmailItem = OrderEmailData['items'][number];
export const variantOf = (item: OrderEmailItem) => variantLabel(item.color, item.size) ?? '';
/** 'powder-blue, M · Qty 2 × $45.00' under an item's name (then 'Final sale: cannot be returned' for such a line). */
const itemDetails = (item: OrderEmailItem) =>
  [
    variantOf(item),
    `Qty ${item.quantity}${item.quantity > 1 ? ` × ${formatPrice(item.priceCents)}` : ''}`,
    item.finalSale ? FINAL_SALE.line : '',
  ]
    .filter(Boolean)
    .join(' · ');
const shippingAmount = (order: OrderEmailData) => (order.shippingCents === 0 ? 'Free' : formatPrice(order.shippingCents));
const itemCount = (order: OrderEmailData) => order.items.reduce((n, i) => n + i.quantity, 0);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function Items({ order, title }: { order: OrderEmailData; title: string }) {
  return (
    <Section>
      <Eyebrow>{title}</Eyebrow>
      {order.items.map((item, index) => (
        <Row
          // biome-ignore lint/suspicious/noArrayIndexKey: a rendered e-mail never re-renders
          key={index}
          style={{ borderTop: index === 0 ? 'none' : `1px solid ${COLORS.line}` }}
        >
          <Column style={{ padding: '12px 12px 12px 0', verticalAlign: 'top' }}>
            <Text style={{ ...text, fontWeight: 600 }}>{item.name}</Text>
            <Text style={muted}>{itemDetails(item)}</Text>
          </Column>
          <Column align="right" style={{ padding: '12px 0', verticalAlign: 'top', whiteSpace: 'nowrap' }}>
            <Text style={text}>{formatPrice(item.priceCents * item.quantity)}</Text>
          </Column>
        </Row>
      ))}
    </Section>
  );
}

function Totals({ order }: { order: OrderEmailData }) {
  return (
    <Section style={{ backgroundColor: COLORS.bg, borderRadius: '10px', padding: '14px 18px', marginTop: '8px' }}>
      <AmountRow label="Subtotal" amount={formatPrice(order.subtotalCents)} />
      {discountLines(order.discount).map((line) => (
        <AmountRow key={line.key} label={line.label} amount={line.amount} />
      ))}
      <AmountRow label={`Shipping (${order.shippingService})`} amount={shippingAmount(order)} />
      <AmountRow label="Tax" amount={formatPrice(order.taxCents)} />
      <Row>
        <Column style={{ borderTop: `1px solid ${COLORS.line}`, paddingTop: '8px' }} />
      </Row>
      <AmountRow label="Total" amount={formatPrice(order.totalCents)} strong />
    </Section>
  );
}

function Delivery({ order, audience }: { order: OrderEmailData; audience: OrderEmailAudience }) {
  return (
    <Section>
      <Row>
        <Column className="stack" style={{ width: '50%', verticalAlign: 'top', paddingRight: '12px' }}>
          <Eyebrow>Ships to</Eyebrow>
          <Text style={text}>
            {shipToLines(order.address).map((line, i) => (
              <Fragment key={line}>
                {i > 0 && <br />}
                {line}
              </Fragment>
            ))}
          </Text>
        </Column>
        <Column className="stack" style={{ width: '50%', verticalAlign: 'top' }}>
          <Eyebrow>Delivery</Eyebrow>
          <Text style={text}>{order.shippingService}</Text>
          {order.estimatedDelivery && <Text style={muted}>{`Estimated delivery ${deliveryDay(order.estimatedDelivery)}`}</Text>}
          {order.tracking ? (
            <Text style={{ ...muted, marginTop: '8px' }}>
              {'Tracking number '}
              {order.tracking.url ? (
                <Link href={order.tracking.url} style={{ color: COLORS.accent }}>
                  {order.tracking.number}
                </Link>
              ) : (
                <span style={{ color: COLORS.ink }}>{order.tracking.number}</span>
              )}
            </Text>
          ) : (
            <Text style={{ ...muted, marginTop: '8px' }}>
              {audience === 'customer'
                ? 'Your tracking number will appear on your order page once the parcel has its label.'
                : 'No label yet.'}
            </Text>
          )}
        </Column>
      </Row>
    </Section>
  );
}

/** The confirmation the shopper receives, with the link to the order page their token opens. */
export function CustomerOrderEmail({ order, link }: { order: OrderEmailData; link: string | null }) {
  const number = orderNumber(order.id);
  return (
    <EmailLayout
      preview={`Order ${number} is confirmed: ${plural(itemCount(order), 'item')}, ${formatPrice(order.totalCents)}. Thank you for shopping with Aurelia.`}
      footer={<ContactFooter />}
    >
      <Intro title={`Thank you, ${order.customerName}.`}>
        <Text style={text}>Your order is confirmed and we are preparing it now. Here is your receipt.</Text>
        <Text style={{ ...muted, marginTop: '12px' }}>
          {'Order '}
          <strong style={{ color: COLORS.ink }}>{number}</strong>
          {` · Placed ${placedOn(order.placedAt)}`}
        </Text>
        {link && <CallToAction href={link} label="View your order" />}
      </Intro>
      <Divider />
      <Items order={order} title="Your items" />
      <Totals order={order} />
      <Divider />
      <Delivery order={order} audience="customer" />
    </EmailLayout>
  );
}

/** The notice to the shop (SHOP_ADMIN_EMAIL): who ordered what, for how much, and where it goes. */
export function ShopOrderEmail({ order, link }: { order: OrderEmailData; link: string | null }) {
  const number = orderNumber(order.id);
  return (
    <EmailLayout
      preview={`${order.customerName} ordered ${plural(itemCount(order), 'item')} for ${formatPrice(order.totalCents)}.`}
      footer={<Text style={muted}>Sent to the shop's address (SHOP_ADMIN_EMAIL) for every paid order.</Text>}
    >
      <Intro title={`New order ${number}`}>
        <Text style={text}>
          {`${formatPrice(order.totalCents)} from ${order.customerName} (`}
          <Link href={`mailto:${order.customerEmail}`} style={{ color: COLORS.accent }}>
            {order.customerEmail}
          </Link>
          ), paid and recorded.
        </Text>
        <Text style={{ ...muted, marginTop: '12px' }}>{`Placed ${placedOn(order.placedAt)} · Order id ${order.id}`}</Text>
        {link && <CallToAction href={link} label="Open the order" />}
      </Intro>
      <Divider />
      <Items order={order} title="Items" />
      <Totals order={order} />
      <Divider />
      <Delivery order={order} audience="shop" />
    </EmailLayout>
  );
}

/**
 * The plain-text part, written for reading rather than converted from the HTML: a receipt's tables turned into text
 * put every label and amount on a line of its own.
 */
export function orderEmailText(order: OrderEmailData, audience: OrderEmailAudience, link: string | null): string {
  const number = orderNumber(order.id);
  const opening =
    audience === 'customer'
      ? [
          `Thank you, ${order.customerName}.`,
          `Your order ${number} is confirmed and we are preparing it now. Placed ${placedOn(order.placedAt)}.`,
          ...(link ? [`See your order: ${link}`] : []),
        ]
      : [
          `New order ${number}: ${formatPrice(order.totalCents)} from ${order.customerName} <${order.customerEmail}>, paid and recorded.`,
          `Placed ${placedOn(order.placedAt)}. Order id ${order.id}.`,
          ...(link ? [`Open the order: ${link}`] : []),
        ];
  const items = order.items.map(
    (i) =>
      `${i.quantity} × ${i.name}${variantOf(i) ? ` (${variantOf(i)})` : ''}: ${formatPrice(i.priceCents * i.quantity)}${i.finalSale ? ` · ${FINAL_SALE.line}` : ''}`,
  );
  const totals = [
    `Subtotal: ${formatPrice(order.subtotalCents)}`,
    ...discountLines(order.discount).map((line) => `${line.label}: ${line.amount}`),
    `Shipping (${order.shippingService}): ${shippingAmount(order)}`,
    `Tax: ${formatPrice(order.taxCents)}`,
    `Total: ${formatPrice(order.totalCents)}`,
  ];
  const delivery = [
    order.shippingService,
    ...(order.estimatedDelivery ? [`Estimated delivery: ${deliveryDay(order.estimatedDelivery)}`] : []),
    order.tracking
      ? `Tracking number: ${order.tracking.number}${order.tracking.url ? ` (${order.tracking.url})` : ''}`
      : audience === 'customer'
        ? 'Your tracking number will appear on your order page once the parcel has its label.'
        : 'No label yet.',
  ];
  const closing =
    audience === 'customer'
      ? `Questions about your order? Write to ${CONTACT.email} or call ${CONTACT.phone}, ${CONTACT.hours}.\n\nAurelia · Atlanta, Georgia`
      : 'Aurelia';
  return [
    opening.join('\n\n'),
    `ITEMS\n${items.join('\n')}`,
    totals.join('\n'),
    `SHIPS TO\n${shipToLines(order.address).join('\n')}`,
    `DELIVERY\n${delivery.join('\n')}`,
    closing,
  ].join('\n\n');
}

/**
 * The order e-mail for the shopper or the shop as a message for the mail port: the subject (kept stable: people and
 * tests look for it), the HTML from the React Email template, and the plain-text part.
 */
export async function renderOrderEmail(
  order: OrderEmailData,
  audience: OrderEmailAudience,
  to: string,
  link: string | null,
): Promise<MailMessage> {
  const number = orderNumber(order.id);
  const subject =
    audience === 'customer' ? `Your Aurelia order ${number}` : `New order ${number}: ${formatPrice(order.totalCents)}`;
  const html = await render(
    audience === 'customer' ? <CustomerOrderEmail order={order} link={link} /> : <ShopOrderEmail order={order} link={link} />,
  );
  return { to, subject, html, text: orderEmailText(order, audience, link) };
}
