import { describe, expect, it } from 'vitest';
import { contactBody, saveContactMessage } from '@/features/contact/contact.server';
import { asShopper } from '@/server/db/roles.server';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();

describe(`contact messages on ${TEST_DATABASE_KIND}`, () => {
  it('a guest sends one; it is stored trimmed, and the guest cannot read it back', async () => {
    const message = contactBody.parse({ name: ' Ada ', email: 'ada@example.com', message: 'Do you ship to Canada?' });
    await asShopper(db, null, (tx) => saveContactMessage(tx, message));
    const [row] = await db.query<{ name: string; message: string }>('select name, message from public.contact_messages');
    expect(row).toEqual({ name: 'Ada', message: 'Do you ship to Canada?' });
    await expect(asShopper(db, null, (tx) => tx.query('select * from public.contact_messages'))).rejects.toThrow(
      /permission denied/,
    );
  });

  it("needs all three fields ('Please fill in all fields.') and a valid e-mail", () => {
    const first = (data: unknown) => contactBody.safeParse(data).error?.issues[0]?.message;
    expect(first({ name: 'Ada', email: 'ada@example.com', message: '   ' })).toBe('Please fill in all fields.');
    expect(first({ name: 'Ada', email: 'ada@example.com' })).toBe('Please fill in all fields.');
    expect(first({ name: 'Ada', email: 'not-an-email', message: 'Hi' })).toBe('Please enter a valid email address');
    expect(first({ name: 'Ada', email: 'ada@example.com', message: 'x'.repeat(5001) })).toBe(
      'The message may be at most 5000 characters.',
    );
  });
});
