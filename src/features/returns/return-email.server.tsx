import { Link } from '@react-email/link';
import { render } from '@react-email/render';
import { Section } from '@react-email/section';
import { Text } from '@react-email/text';
import { formatPrice } from '@/features/catalogue/catalogue';
import {
  CallToAction,
  COLORS,
  ContactFooter,
  Divider,
  EmailLayout,
  Eyebrow,
  Intro,
  muted,
  text,
} from '@/features/checkout/emails/email-layout.server';
import { orderNumber } from '@/features/orders/orders';
import { CONTACT } from '@/lib/contact';
import type { MailMessage } from '@/server/mail/mail.port';
import { RETURN_REASONS, type ReturnKind, type ReturnReason, type ReturnStatus } from './returns';

// What a shopper is told at each step of a return (decision 011): the request received, approved with its label,
// the items received, the refund made, or the request declined with the owner's reason. Queued once per step through
// the outbox ('return-email'); React escapes every value, so a comment or a reason arrives as text.

export interface ReturnEmailData {
  number: string;
  kind: ReturnKind;
  orderId: string;
  customerName: string;
  reason: ReturnReason;
  declineReason: string | null;
  items: {
    name: string;
    variant: string | null;
    quantity: number;
    condition: string | null;
    /** An exchange's line: the colour and size sent instead ('grey, L'). */
    exchangeFor?: string | null;
  }[];
  /** The return label: where to get it, its tracking number, whether it is a test label. */
  label: { href: string; trackingNumber: string | null; test: boolean } | null;
  /** What was refunded for the return (the refunded step). */
  refundedCents: number | null;
  /** An exchange's replacement order, once sent: its number. */
  replacementNumber?: string | null;
}

const SETTLES = 'It can take 5 to 10 business days to appear on your statement.';

const TITLES: Record<ReturnStatus, string> = {
  requested: 'We have your return request.',
  approved: 'Your return is approved.',
  received: 'Your return has arrived.',
  refunded: 'Your refund is on its way.',
  exchanged: 'Your replacement is on its way.',
  declined: 'We cannot accept this return.',
};

function lines(r: ReturnEmailData, step: ReturnStatus): string[] {
  const order = orderNumber(r.orderId);
  switch (step) {
    case 'requested':
      return [
        `Thank you, ${r.customerName}. We have your request to ${r.kind === 'exchange' ? 'exchange' : 'return'} the items below from order ${order}. Your return number is ${r.number}.`,
        'We will look at it within two business days and e-mail you the next step. Please do not send anything back yet.',
      ];
    case 'approved':
      return [
        `Good news, ${r.customerName}: your return ${r.number} for order ${order} is approved.`,
        r.label
          ? 'Print the return label, pack the items below with the return number inside, and hand the parcel to the carrier.'
          : 'Pack the items below with the return number inside; we will e-mail you the return label as soon as it is ready.',
        ...(r.label?.test ? ['This shop is in test mode: the label is a TEST label, not valid postage.'] : []),
      ];
    case 'received':
      return [
        `We have received your return ${r.number} for order ${order}, ${r.customerName}.`,
        r.kind === 'exchange'
          ? 'Your replacement is next: we will e-mail you as soon as it is on its way.'
          : 'Your refund is next: we will e-mail you as soon as it is on its way.',
      ];
    case 'exchanged':
      return [
        `We have sent your replacement for return ${r.number} (order ${order}), ${r.customerName}: it is order ${r.replacementNumber ?? 'on its way'}, at no charge.`,
        'Its confirmation comes in an e-mail of its own, and its tracking number once it ships.',
      ];
    case 'refunded':
      return [
        `We have refunded ${formatPrice(r.refundedCents ?? 0)} to your card for return ${r.number} (order ${order}), ${r.customerName}. ${SETTLES}`,
      ];
    case 'declined':
      return [
        `We are sorry, ${r.customerName}: we cannot accept return ${r.number} for order ${order}.`,
        `Our reason: ${r.declineReason ?? 'not given'}`,
        `If you think this is a mistake, write to ${CONTACT.email} and we will look again.`,
      ];
  }
}

function subject(r: ReturnEmailData, step: ReturnStatus): string {
  switch (step) {
    case 'requested':
      return `Your Aurelia return ${r.number}: request received`;
    case 'approved':
      return `Your Aurelia return ${r.number} is approved: your return label`;
    case 'received':
      return `Your Aurelia return ${r.number} has arrived`;
    case 'refunded':
      return `Your Aurelia return ${r.number}: ${formatPrice(r.refundedCents ?? 0)} refunded`;
    case 'exchanged':
      return `Your Aurelia return ${r.number}: your replacement is on its way`;
    case 'declined':
      return `Your Aurelia return ${r.number} was declined`;
  }
}

const itemLine = (i: ReturnEmailData['items'][number]) =>
  `${i.quantity} × ${i.name}${i.variant ? ` (${i.variant})` : ''}${i.exchangeFor ? ` for ${i.exchangeFor}` : ''}${i.condition ? `, received ${i.condition}` : ''}`;

export function ReturnEmail({ data, step, link }: { data: ReturnEmailData; step: ReturnStatus; link: string | null }) {
  const [first, ...rest] = lines(data, step);
  return (
    <EmailLayout preview={subject(data, step)} footer={<ContactFooter />}>
      <Intro title={TITLES[step]}>
        <Text style={text}>{first}</Text>
        {rest.map((line) => (
          <Text key={line} style={{ ...muted, marginTop: '8px' }}>
            {line}
          </Text>
        ))}
        {step === 'approved' && data.label ? (
          <CallToAction href={data.label.href} label="Print the return label" />
        ) : (
          link && <CallToAction href={link} label="View your order" />
        )}
      </Intro>
      <Divider />
      <Section>
        <Eyebrow>{`Return ${data.number}`}</Eyebrow>
        {data.items.map((i) => (
          <Text key={itemLine(i)} style={text}>
            {itemLine(i)}
          </Text>
        ))}
        <Text style={{ ...muted, marginTop: '8px' }}>{`Reason: ${RETURN_REASONS[data.reason]}`}</Text>
        {step === 'approved' && data.label?.trackingNumber && (
          <Text style={{ ...muted, marginTop: '4px' }}>{`Return tracking number: ${data.label.trackingNumber}`}</Text>
        )}
        {step === 'approved' && link && (
          <Text style={{ ...muted, marginTop: '8px' }}>
            <Link href={link} style={{ color: COLORS.accent }}>
              See where your return stands
            </Link>
          </Text>
        )}
      </Section>
    </EmailLayout>
  );
}

/** A return step's e-mail as a message for the mail port (a plain-text part written for reading). */
export async function renderReturnEmail(
  data: ReturnEmailData,
  step: ReturnStatus,
  to: string,
  link: string | null,
): Promise<MailMessage> {
  const html = await render(<ReturnEmail data={data} step={step} link={link} />);
  const textPart = [
    lines(data, step).join('\n\n'),
    ...(step === 'approved' && data.label ? [`Your return label: ${data.label.href}`] : []),
    `RETURN ${data.number}\n${data.items.map(itemLine).join('\n')}\nReason: ${RETURN_REASONS[data.reason]}`,
    ...(link ? [`See your order: ${link}`] : []),
    `Questions? Write to ${CONTACT.email} or call ${CONTACT.phone}, ${CONTACT.hours}.\n\nAurelia · Atlanta, Georgia`,
  ].join('\n\n');
  return { to, subject: subject(data, step), html, text: textPart };
}
