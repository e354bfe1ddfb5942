import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import {
  CARD_MESSAGES,
  cardOutcome,
  cardProblem,
  formatCardNumber,
  formatExpiry,
  luhnValid,
  parseExpiry,
  TEST_CARDS,
} from '@/server/payments/test-cards';
import TestCardForm from './TestCardForm';

const today = new Date('2026-11-24T12:00:00Z');
const card = { number: '4242 4242 4242 4242', expMonth: 12, expYear: 30, cvc: '123' };

describe('test cards', () => {
  it('every listed test card is a valid card number', () => {
    for (const { number } of TEST_CARDS) expect(luhnValid(number), number).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
  });

  it("gives each of Stripe's test cards its outcome, and any other number 'Your card number is incorrect.'", () => {
    expect(cardOutcome('4242 4242 4242 4242')).toEqual({ kind: 'succeed' });
    expect(cardOutcome('4000-0025-0000-3155')).toEqual({ kind: 'authenticate' });
    expect(cardOutcome('4000000000009995')).toEqual({ kind: 'decline', message: 'Your card has insufficient funds.' });
    expect(cardOutcome('4111111111111111')).toEqual({ kind: 'decline', message: CARD_MESSAGES.incorrectNumber });
  });

  it('checks the expiry against today: this month passes, last month and last year do not', () => {
    expect(cardProblem({ ...card, expMonth: 11, expYear: 26 }, today)).toBeNull();
    expect(cardProblem({ ...card, expMonth: 11, expYear: 2026 }, today)).toBeNull();
    expect(cardProblem({ ...card, expMonth: 10, expYear: 26 }, today)?.message).toBe(CARD_MESSAGES.expiryDatePast);
    expect(cardProblem({ ...card, expMonth: 12, expYear: 25 }, today)?.message).toBe(CARD_MESSAGES.expiryYearPast);
    expect(cardProblem({ ...card, expMonth: 0 }, today)?.message).toBe(CARD_MESSAGES.expiryMonthInvalid);
    expect(cardProblem({ ...card, ...parseExpiry('1/') }, today)?.message).toBe(CARD_MESSAGES.expiryIncomplete);
  });

  it('accepts a 3- or 4-digit CVC and an optional 5-digit ZIP', () => {
    expect(cardProblem({ ...card, cvc: '1234', postalCode: '97201-1234' }, today)).toBeNull();
    expect(cardProblem({ ...card, cvc: '' }, today)).toEqual({ field: 'cvc', message: CARD_MESSAGES.cvcIncomplete });
    expect(cardProblem({ ...card, postalCode: '9720' }, today)?.field).toBe('postalCode');
    expect(cardProblem({ ...card, postalCode: '  ' }, today)).toBeNull();
  });

  it('formats the number and expiry as they are typed, and reads the expiry back', () => {
    expect(formatCardNumber('4242424242424242')).toBe('4242 4242 4242 4242');
    expect(formatCardNumber('4242 42a')).toBe('4242 42');
    expect(formatExpiry('0427')).toBe('04 / 27');
    expect(formatExpiry('04')).toBe('04');
    expect(parseExpiry('04 / 27')).toEqual({ expMonth: 4, expYear: 27 });
    expect(parseExpiry('4/2027')).toEqual({ expMonth: 4, expYear: 2027 });
    expect(Number.isNaN(parseExpiry('April').expMonth)).toBe(true);
  });
});

describe('the TEST MODE card form', () => {
  const html = renderToStaticMarkup(
    createElement(TestCardForm, { clientSecret: 'pi_test_1_secret_x', amountCents: 10_890, onResult: () => {} }),
  );

  it('says TEST MODE, lists the test cards and shows the amount on the Pay button', () => {
    expect(html).toContain('TEST MODE');
    for (const { number } of TEST_CARDS) expect(html).toContain(number.replace(/(\d{4})(?=\d)/g, '$1 '));
    expect(html).toMatch(/<button type="submit"[^>]*>Pay \$108\.90<\/button>/);
  });

  it('labels every field and gives it the autocomplete token browsers fill cards with', () => {
    for (const [label, token] of [
      ['Card number', 'cc-number'],
      ['Expiry (MM/YY)', 'cc-exp'],
      ['CVC', 'cc-csc'],
      ['ZIP', 'billing postal-code'],
    ] as const) {
      const id = new RegExp(`<label for="([^"]+)">${label.replace(/[()]/g, '\\$&')}`).exec(html)?.[1];
      expect(id, label).toBeTruthy();
      expect(html).toMatch(new RegExp(`id="${id}"[^>]*autoComplete="${token}"|autoComplete="${token}"[^>]*id="${id}"`, 'i'));
    }
    expect(html).toContain('inputMode="numeric"');
  });

  it('uses no inline style attributes (the CSP forbids them)', () => {
    expect(html).not.toMatch(/\sstyle=/);
  });
});
