// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
import { Body } from '@react-email/body';
import { Button } from '@react-email/button';
import { Column } from '@react-email/column';
import { Container } from '@react-email/container';
import { Head } from '@react-email/head';
import { Heading } from '@react-email/heading';
import { Hr } from '@react-email/hr';
import { Html } from '@react-email/html';
import { Link } from '@react-email/link';
import { Preview } from '@react-email/preview';
import { Row } from '@react-email/row';
import { Section } from '@react-email/section';
import { Text } from '@react-email/text';
import type { CSSProperties, ReactNode } from 'react';
import { CONTACT } from '@/lib/contact';

// The shop's look (src/styles/) in what mail clients understand: inline styles, tables, web-safe fonts.
// Gmail and Outlook drop <style> blocks and custom properties, so every colour is written out here once.
export const COLORS = {
  bg: '#fbf7f2',
  surface: '#ffffff',
  ink: '#2b2420',
  muted: '#5f554e',
  line: '#e8dfd5',
  accent: '#9a3f1c',
} as const;

const SERIF = 'Georgia, "Times New Roman", serif';
const SANS = '-apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';

export const text: CSSProperties = { fontFamily: SANS, fontSize: '15px', lineHeight: '24px', color: COLORS.ink, margin: 0 };
export const muted: CSSProperties = { ...text, fontSize: '13px', lineHeight: '20px', color: COLORS.muted };
const eyebrow: CSSProperties = {
  ...muted,
  fontSize: '11px',
  lineHeight: '16px',
  letterSpacing: '0.14em',
  textTransform: 'uppercase',
  margin: '0 0 8px',
};

// On a phone, the two columns under the totals stack. Clients that drop <style> (Outlook, some webmails) keep two
// columns, which still read at 375 px.
const RESPONSIVE =
  '@media only screen and (max-width: 480px) { .stack { display: block !important; width: 100% !important; padding: 0 0 16px !important; } }';

/** The frame every order e-mail shares: wordmark, a white card on the shop's cream, and a footer. */
export function EmailLayout({ preview, footer, children }: { preview: string; footer: ReactNode; children: ReactNode }) {
  return (
    <Html lang="en" dir="ltr">
      <Head>
        <meta name="color-scheme" content="light" />
        <meta name="supported-color-schemes" content="light" />
        <style>{RESPONSIVE}</style>
      </Head>
      <Preview>{preview}</Preview>
      <Body style={{ backgroundColor: COLORS.bg, margin: 0, padding: '24px 12px' }}>
        <Container style={{ maxWidth: '600px', width: '100%' }}>
          <Section style={{ padding: '8px 16px 22px', textAlign: 'center' }}>
            <Text
              style={{
                fontFamily: SERIF,
                fontSize: '26px',
                lineHeight: '32px',
                letterSpacing: '0.32em',
                color: COLORS.ink,
                margin: 0,
                textTransform: 'uppercase',
              }}
            >
              Aurelia
            </Text>
            <Hr style={{ width: '36px', border: 'none', borderTop: `2px solid ${COLORS.accent}`, margin: '10px auto' }} />
            <Text style={{ ...eyebrow, margin: 0, letterSpacing: '0.2em' }}>Skincare · Haircare · Scrubs</Text>
          </Section>
          <Section
            style={{
              backgroundColor: COLORS.surface,
              border: `1px solid ${COLORS.line}`,
              borderRadius: '14px',
              padding: '32px 28px',
            }}
          >
            {children}
          </Section>
          <Section style={{ padding: '20px 16px 8px', textAlign: 'center' }}>
            {footer}
            <Text style={{ ...muted, margin: '8px 0 0' }}>Aurelia · Atlanta, Georgia</Text>
          </Section>
        </Container>
      </Body>
    </Html>
  );
}

/** A small uppercase label over a block (Items, Ships to, Delivery). */
export function Eyebrow({ children }: { children: ReactNode }) {
  return <Text style={eyebrow}>{children}</Text>;
}

/** The card's opening: a serif heading and the lines under it. */
export function Intro({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Section>
      <Heading
        as="h1"
        style={{
          fontFamily: SERIF,
          fontWeight: 400,
          fontSize: '28px',
          lineHeight: '34px',
          color: COLORS.ink,
          margin: '0 0 12px',
        }}
      >
        {title}
      </Heading>
      {children}
    </Section>
  );
}

/** The one call to action, with the address written out under it for clients that block buttons. */
export function CallToAction({ href, label }: { href: string; label: string }) {
  return (
    <Section style={{ padding: '24px 0 4px' }}>
      <Button
        href={href}
        style={{
          backgroundColor: COLORS.accent,
          color: '#ffffff',
          fontFamily: SANS,
          fontSize: '15px',
          fontWeight: 600,
          lineHeight: '20px',
          padding: '13px 26px',
          borderRadius: '999px',
          textDecoration: 'none',
        }}
      >
        {label}
      </Button>
      <Text style={{ ...muted, margin: '14px 0 0', wordBreak: 'break-all' }}>
        {'Or paste this address into your browser: '}
        <Link href={href} style={{ color: COLORS.accent }}>
          {href}
        </Link>
      </Text>
    </Section>
  );
}

/** The shopper's footer: how to reach the shop. */
export function ContactFooter() {
  return (
    <Text style={muted}>
      {'Questions about your order? Write to '}
      <Link href={`mailto:${CONTACT.email}`} style={{ color: COLORS.accent }}>
        {CONTACT.email}
      </Link>
      {' or call '}
      <span style={{ whiteSpace: 'nowrap' }}>{CONTACT.phone}</span>
      {`, ${CONTACT.hours}.`}
    </Text>
  );
}

export function Divider() {
  return <Hr style={{ borderColor: COLORS.line, borderTopWidth: '1px', margin: '24px 0' }} />;
}

/** A label and an amount on one line, the amount right-aligned (the totals). */
export function AmountRow({ label, amount, strong = false }: { label: string; amount: string; strong?: boolean }) {
  const style: CSSProperties = strong ? { ...text, fontFamily: SERIF, fontSize: '19px', lineHeight: '28px' } : text;
  return (
    <Row>
      <Column style={{ padding: '3px 0' }}>
        <Text style={strong ? style : { ...style, color: COLORS.muted }}>{label}</Text>
      </Column>
      <Column align="right" style={{ padding: '3px 0', whiteSpace: 'nowrap' }}>
        <Text style={style}>{amount}</Text>
      </Column>
    </Row>
  );
}
