/**
 * The test processor's cards: Stripe's published test numbers and the messages Stripe gives for them, so a shopper
 * (and an end-to-end test) on the embedded default sees what production would show. Pure: the TEST MODE card form
 * checks the fields with it before sending, and the test processor on the server decides the outcome with it.
 */

export type CardOutcome =
  | { kind: 'succeed' }
  | { kind: 'decline'; message: string }
  /** 3-D Secure: the intent waits in requires_action until the shopper completes or fails the challenge. */
  | { kind: 'authenticate' };

export interface TestCard {
  number: string;
  label: string;
  outcome: CardOutcome;
}

export const CARD_MESSAGES = {
  declined: 'Your card was declined.',
  insufficientFunds: 'Your card has insufficient funds.',
  expired: 'Your card has expired.',
  incorrectCvc: "Your card's security code is incorrect.",
  processingError: 'An error occurred while processing your card. Try again in a little bit.',
  incorrectNumber: 'Your card number is incorrect.',
  authenticationFailed:
    'We are unable to authenticate your payment method. Please choose a different payment method and try again.',
  numberIncomplete: 'Your card number is incomplete.',
  numberInvalid: 'Your card number is invalid.',
  expiryIncomplete: "Your card's expiration date is incomplete.",
  expiryMonthInvalid: "Your card's expiration month is invalid.",
  expiryYearInvalid: "Your card's expiration year is invalid.",
  expiryYearPast: "Your card's expiration year is in the past.",
  expiryDatePast: "Your card's expiration date is in the past.",
  cvcIncomplete: "Your card's security code is incomplete.",
  postalCodeIncomplete: 'Your postal code is incomplete.',
} as const;

/** The cards the TEST MODE hint lists, in Stripe's order. */
export const TEST_CARDS: readonly TestCard[] = [
  { number: '4242424242424242', label: 'Succeeds', outcome: { kind: 'succeed' } },
  { number: '4000002500003155', label: 'Asks for authentication', outcome: { kind: 'authenticate' } },
  { number: '4000000000000002', label: 'Declined', outcome: { kind: 'decline', message: CARD_MESSAGES.declined } },
  {
    number: '4000000000009995',
    label: 'Insufficient funds',
    outcome: { kind: 'decline', message: CARD_MESSAGES.insufficientFunds },
  },
  { number: '4000000000000069', label: 'Expired card', outcome: { kind: 'decline', message: CARD_MESSAGES.expired } },
  { number: '4000000000000127', label: 'Incorrect CVC', outcome: { kind: 'decline', message: CARD_MESSAGES.incorrectCvc } },
  {
    number: '4000000000000119',
    label: 'Processing error',
    outcome: { kind: 'decline', message: CARD_MESSAGES.processingError },
  },
];

export interface CardDetails {
  number: string;
  expMonth: number;
  /** Two digits (26) or four (2026). */
  expYear: number;
  cvc: string;
  postalCode?: string | undefined;
}

export type CardField = 'number' | 'expiry' | 'cvc' | 'postalCode';

/** A card number without the spaces and dashes people type. */
export function cardDigits(number: string): string {
  return number.replace(/[\s-]/g, '');
}

/** Whether the digits pass the Luhn check every card number carries. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function fullYear(year: number): number {
  return year < 100 ? 2000 + year : year;
}

/**
 * The first problem with what was typed, in Stripe's words and with the field it belongs to, or null. This is what
 * Stripe's own card field says before anything is sent; `now` is passed in so tests can fix the date.
 */
export function cardProblem(card: CardDetails, now: Date = new Date()): { field: CardField; message: string } | null {
  const digits = cardDigits(card.number);
  if (!/^\d*$/.test(digits)) return { field: 'number', message: CARD_MESSAGES.numberInvalid };
  if (digits.length < 13) return { field: 'number', message: CARD_MESSAGES.numberIncomplete };
  if (digits.length > 19 || !luhnValid(digits)) return { field: 'number', message: CARD_MESSAGES.numberInvalid };

  if (!Number.isInteger(card.expMonth) || !Number.isInteger(card.expYear) || card.expYear < 0) {
    return { field: 'expiry', message: CARD_MESSAGES.expiryIncomplete };
  }
  if (card.expMonth < 1 || card.expMonth > 12) return { field: 'expiry', message: CARD_MESSAGES.expiryMonthInvalid };
  const year = fullYear(card.expYear);
  const thisYear = now.getFullYear();
  if (year < thisYear) return { field: 'expiry', message: CARD_MESSAGES.expiryYearPast };
  if (year === thisYear && card.expMonth < now.getMonth() + 1) return { field: 'expiry', message: CARD_MESSAGES.expiryDatePast };
  // Stripe refuses expiry years implausibly far ahead.
  if (year > thisYear + 50) return { field: 'expiry', message: CARD_MESSAGES.expiryYearInvalid };

  if (!/^\d{3,4}$/.test(card.cvc.trim())) return { field: 'cvc', message: CARD_MESSAGES.cvcIncomplete };

  const zip = (card.postalCode ?? '').trim();
  if (zip !== '' && !/^\d{5}(-?\d{4})?$/.test(zip)) return { field: 'postalCode', message: CARD_MESSAGES.postalCodeIncomplete };
  return null;
}

/** What charging a well-formed card does: a listed test card's outcome; any other number is not a test card. */
export function cardOutcome(number: string): CardOutcome {
  const digits = cardDigits(number);
  return (
    TEST_CARDS.find((card) => card.number === digits)?.outcome ?? { kind: 'decline', message: CARD_MESSAGES.incorrectNumber }
  );
}

/** Reads the expiry as typed ("04/27", "4 / 2027", "0427"); NaN parts when it cannot be read. */
export function parseExpiry(text: string): { expMonth: number; expYear: number } {
  const match = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(text);
  if (!match) return { expMonth: Number.NaN, expYear: Number.NaN };
  return { expMonth: Number(match[1]), expYear: Number(match[2]) };
}

/** Groups the digits in fours as they are typed: "4242424242424242" → "4242 4242 4242 4242". */
export function formatCardNumber(text: string): string {
  return cardDigits(text)
    .replace(/\D/g, '')
    .slice(0, 19)
    .replace(/(\d{4})(?=\d)/g, '$1 ');
}

/** Puts the slash in as the expiry is typed: "042" → "04 / 2", "0427" → "04 / 27". */
export function formatExpiry(text: string): string {
  const digits = text.replace(/\D/g, '').slice(0, 4);
  return digits.length > 2 ? `${digits.slice(0, 2)} / ${digits.slice(2)}` : digits;
}
