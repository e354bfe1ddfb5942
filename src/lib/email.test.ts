import { z } from 'astro/zod';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contactBody } from '@/features/contact/contact.server';
import { newsletterProblem } from '@/features/newsletter/newsletter';
import { resetRequestBody } from '@/server/auth/auth.schemas';
import { mailMessageSchema } from '@/server/mail/mail.port';
import { signUpProblem } from './auth.rules';
import { isEmail } from './email';

const accepted = [
  'ada@example.com',
  'Ada.Lovelace@Example.COM',
  'first.last+tag@mail.example.co.uk',
  "o'brien@example.ie",
  'x_y-z@sub-domain.example.org',
  '1@example.io',
  `${'a'.repeat(64)}@example.com`,
];

const refused = [
  ['josé@example.com', 'a letter outside ASCII in the local part'],
  ['ada@exämple.com', 'a letter outside ASCII in the domain'],
  ['ada', 'no @'],
  ['ada@example', 'no top-level domain'],
  ['ada@example.c', 'a one-letter top-level domain'],
  ['.ada@example.com', 'a leading dot'],
  ['ada.@example.com', 'a trailing dot before @'],
  ['ad..a@example.com', 'two dots in a row'],
  ['ada@-example.com', 'a domain label starting with a hyphen'],
  ['ada @example.com', 'a space'],
  [' ada@example.com', 'a space around it (callers trim first)'],
  ['ada@example.com\u0000', 'a NUL character'],
  ['a"b@example.com', 'a quoted-string character'],
  ['ada@@example.com', 'two @'],
  [`${'a'.repeat(65)}@example.com`, 'a local part over 64 characters'],
  [`a@${'b'.repeat(250)}.com`, 'over 254 characters'],
  ['', 'nothing'],
] as const;

describe('one e-mail rule', () => {
  it.each(accepted)('accepts %s', (address) => {
    expect(isEmail(address)).toBe(true);
  });

  it.each(refused)('refuses %j (%s)', (address) => {
    expect(isEmail(address)).toBe(false);
  });

  it('is the rule of sign-up, password reset, newsletter, contact and the mail port alike', () => {
    const form = { firstName: 'José', lastName: 'Ruiz', password: 'lavender-fields', confirmPassword: 'lavender-fields' };
    for (const email of [...accepted, ...refused.map(([address]) => address).filter((a) => a.trim() !== '')]) {
      const ok = isEmail(email.trim());
      expect(signUpProblem({ ...form, email }) === null, `sign-up ${email}`).toBe(ok);
      expect(resetRequestBody.safeParse({ email }).success, `reset ${email}`).toBe(ok);
      expect(newsletterProblem(email, email.trim()) === null, `newsletter ${email}`).toBe(ok);
      expect(contactBody.safeParse({ name: 'José', email, message: 'Hola' }).success, `contact ${email}`).toBe(ok);
      expect(mailMessageSchema.safeParse({ to: email, subject: 'Hi', text: '', html: '' }).success, `mail ${email}`).toBe(
        isEmail(email),
      );
    }
    expect(signUpProblem({ ...form, email: 'josé@example.com' })).toBe('Please enter a valid email address');
  });

  // What sign-up accepts must be deliverable: the mail port takes it, and so does zod's own e-mail check, whose
  // ASCII-only grammar is what our mail path (SES) handles.
  const addressLike = fc
    .tuple(
      fc.array(fc.stringMatching(/^[A-Za-z0-9_'+-]{1,12}$/), { minLength: 1, maxLength: 3 }),
      fc.array(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9-]{0,10}$/), { minLength: 1, maxLength: 3 }),
      fc.stringMatching(/^[A-Za-z]{2,6}$/),
    )
    .map(([local, labels, tld]) => `${local.join('.')}@${[...labels, tld].join('.')}`);

  it('accepts nothing the mail port or zod would refuse', () => {
    const zodEmail = z.email();
    fc.assert(
      fc.property(fc.oneof(addressLike, fc.emailAddress(), fc.string()), (address) => {
        if (!isEmail(address)) return;
        expect(zodEmail.safeParse(address).success).toBe(true);
        expect(mailMessageSchema.safeParse({ to: address, subject: 'Hi', text: '', html: '' }).success).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts the ordinary addresses zod accepts', () => {
    fc.assert(
      fc.property(addressLike, (address) => {
        if (address.length <= 254 && address.indexOf('@') <= 64)
          expect(isEmail(address)).toBe(z.email().safeParse(address).success);
      }),
      { numRuns: 2000 },
    );
  });
});
