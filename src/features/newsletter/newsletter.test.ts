import { describe, expect, it } from 'vitest';
import { newsletterProblem } from './newsletter';

describe('newsletter checks (product spec)', () => {
  it('needs a signed-in shopper first', () => {
    expect(newsletterProblem('a@example.com', null)).toEqual({ title: 'Please log in to subscribe' });
  });

  it('needs an e-mail address', () => {
    expect(newsletterProblem('  ', 'a@example.com')).toEqual({ title: 'Please enter your email address' });
  });

  it('needs a valid e-mail address', () => {
    expect(newsletterProblem('not-an-email', 'a@example.com')).toEqual({ title: 'Please enter a valid email address' });
  });

  it('needs the account e-mail, compared case-insensitively', () => {
    expect(newsletterProblem('b@example.com', 'a@example.com')).toEqual({
      title: 'Email mismatch',
      description: 'You can only subscribe with your account email address.',
    });
    expect(newsletterProblem('A@Example.com', 'a@example.com')).toBeNull();
  });
});
