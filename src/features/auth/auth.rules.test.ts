import { describe, expect, it } from 'vitest';
import { AUTH_MESSAGES, loginProblem, newPasswordProblem, normalizeEmail, signUpProblem } from '@/lib/auth.rules';

const good = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  password: 'analytical1',
  confirmPassword: 'analytical1',
};

describe('sign-up rules (product spec)', () => {
  it('require all five fields', () => {
    for (const key of Object.keys(good) as (keyof typeof good)[]) {
      expect(signUpProblem({ ...good, [key]: '  ' }), key).toBe('Please fill in all fields.');
    }
  });

  it("say 'Passwords do not match' when the confirmation differs", () => {
    expect(signUpProblem({ ...good, confirmPassword: 'analytical2' })).toBe('Passwords do not match');
  });

  it('accept a complete form', () => {
    expect(signUpProblem(good)).toBeNull();
  });

  it('refuse a malformed e-mail and a short password', () => {
    expect(signUpProblem({ ...good, email: 'ada' })).toBe(AUTH_MESSAGES.invalidEmail);
    expect(signUpProblem({ ...good, password: 'short', confirmPassword: 'short' })).toBe(AUTH_MESSAGES.passwordTooShort);
  });
});

describe('login rules', () => {
  it('require e-mail and password', () => {
    expect(loginProblem('', 'x')).toBe(AUTH_MESSAGES.loginRequired);
    expect(loginProblem('a@example.com', '')).toBe(AUTH_MESSAGES.loginRequired);
    expect(loginProblem('a@example.com', 'x')).toBeNull();
  });
});

describe('new password rules', () => {
  it('require both fields, matching, long enough', () => {
    expect(newPasswordProblem('', '')).toBe(AUTH_MESSAGES.fillAll);
    expect(newPasswordProblem('abcdefgh', 'abcdefgX')).toBe('Passwords do not match');
    expect(newPasswordProblem('abc', 'abc')).toBe(AUTH_MESSAGES.passwordTooShort);
    expect(newPasswordProblem('abcdefgh', 'abcdefgh')).toBeNull();
  });
});

it('normalises e-mail addresses', () => {
  expect(normalizeEmail('  Ada@Example.COM ')).toBe('ada@example.com');
});
