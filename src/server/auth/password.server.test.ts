import { describe, expect, it } from 'vitest';
import { hashPassword, verifyDecoy, verifyPassword } from './password.server';

describe('password hashes', () => {
  it('verify the right password and refuse a wrong one', async () => {
    const hash = await hashPassword('correct horse battery');
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('correct horse batterY', hash)).toBe(false);
  });

  it('salt every hash', async () => {
    expect(await hashPassword('same')).not.toBe(await hashPassword('same'));
  });

  it('refuse a malformed stored hash', async () => {
    expect(await verifyPassword('x', 'plain-text')).toBe(false);
    expect(await verifyDecoy('x')).toBe(false);
  });
});
