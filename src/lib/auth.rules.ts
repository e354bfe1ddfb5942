// Account form rules shared by the login/signup modal and the server (no zod here: islands must stay small).

import { isEmail } from '@/lib/email';

/** Shortest password we accept. The spec names no rule; eight characters is the least a real shop should take. */
export const MIN_PASSWORD_LENGTH = 8;

export const AUTH_MESSAGES = {
  fillAll: 'Please fill in all fields.',
  passwordsDiffer: 'Passwords do not match',
  passwordTooShort: `Password should be at least ${MIN_PASSWORD_LENGTH} characters.`,
  invalidEmail: 'Please enter a valid email address',
  loginRequired: 'Please enter your email and password.',
  welcome: 'Welcome back!',
  signedUp: 'Account created! Please check your email to verify your account.',
  resetSent: 'If an account exists for that address, we have sent a link to reset your password.',
  resetDone: 'Your password has been changed. Please log in.',
  invalidToken: 'This link is invalid or has expired. Please request a new one.',
  verified: 'Your email is verified. Welcome to Aurelia!',
  tooManyAttempts: 'Too many attempts. Please wait a moment and try again.',
} as const;

export interface SignUpFields {
  firstName: string;
  lastName: string;
  email: string;
  password: string;
  confirmPassword: string;
}

/** The first problem with a sign-up form, or null (product spec: all five fields required, passwords must match). */
export function signUpProblem(f: SignUpFields): string | null {
  if (![f.firstName, f.lastName, f.email, f.password, f.confirmPassword].every((v) => v.trim() !== ''))
    return AUTH_MESSAGES.fillAll;
  if (!isEmail(f.email.trim())) return AUTH_MESSAGES.invalidEmail;
  if (f.password !== f.confirmPassword) return AUTH_MESSAGES.passwordsDiffer;
  if (f.password.length < MIN_PASSWORD_LENGTH) return AUTH_MESSAGES.passwordTooShort;
  return null;
}

/** The first problem with a login form, or null (product spec: e-mail and password required). */
export function loginProblem(email: string, password: string): string | null {
  return email.trim() === '' || password === '' ? AUTH_MESSAGES.loginRequired : null;
}

/** The first problem with a new password and its confirmation, or null. */
export function newPasswordProblem(password: string, confirmPassword: string): string | null {
  if (password === '' || confirmPassword === '') return AUTH_MESSAGES.fillAll;
  if (password !== confirmPassword) return AUTH_MESSAGES.passwordsDiffer;
  if (password.length < MIN_PASSWORD_LENGTH) return AUTH_MESSAGES.passwordTooShort;
  return null;
}

/** E-mail addresses are compared and stored trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
