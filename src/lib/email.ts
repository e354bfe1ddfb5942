// The one rule for what counts as an e-mail address: sign-up (form and server), password reset, newsletter, contact
// and the mail port all use it, so an address the shop accepts is one it can also send mail to. No zod here: islands
// import it and must stay small.

/**
 * ASCII only, as zod's `z.email()` and our mail path (SES) take it: dot-separated local part of letters, digits and
 * _ ' + -, not ending in an apostrophe; a domain of letter-or-digit-led labels and a top-level domain of 2+ letters.
 * Addresses with accents (`josé@example.com`) are refused here rather than accepted and then never delivered.
 */
const EMAIL = /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;

/** The longest address SMTP carries (RFC 5321: 254 in all, 64 before the @). */
export const MAX_EMAIL_LENGTH = 254;
const MAX_LOCAL_LENGTH = 64;

/** Whether the string, exactly as given (trim it first), is an e-mail address the shop accepts and can mail. */
export function isEmail(value: string): boolean {
  return value.length <= MAX_EMAIL_LENGTH && value.indexOf('@') <= MAX_LOCAL_LENGTH && EMAIL.test(value);
}
