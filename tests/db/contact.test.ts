import { describe, expect, it } from 'vitest';
import { contactBody, saveContactMessage } from '@/features/contact/contact.server';
import { contactNoticeJob } from '@/features/contact/contact-notice.server';
import { asShopper } from '@/server/db/roles.server';
import type { MailMessage } from '@/server/mail/mail.port';
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

  it('each message is e-mailed to the shop once, through the outbox, quoting the visitor safely', async () => {
    const message = contactBody.parse({
      name: 'Eve\nBcc: victim@example.com',
      email: 'eve@example.com',
      message: '<script>alert(1)</script> Where is my order?',
    });
    await asShopper(db, null, (tx) => saveContactMessage(tx, message));
    const jobs = await db.query<{ payload: { messageId: number } | string; dedupe_key: string }>(
      `select payload, dedupe_key from public.outbox where kind = 'contact-notice' order by id`,
    );
    const last = jobs.at(-1);
    const payload = typeof last?.payload === 'string' ? (JSON.parse(last.payload) as { messageId: number }) : last?.payload;
    expect(last?.dedupe_key).toBe(`contact:${payload?.messageId}`);
    expect(jobs.filter((j) => j.dedupe_key === last?.dedupe_key)).toHaveLength(1);

    const sent: MailMessage[] = [];
    const job = contactNoticeJob({
      db,
      mail: { name: 'recorder', send: async (m) => void sent.push(m) },
      shopEmail: 'orders@shop.example',
      publicOrigin: 'https://shop.example',
    });
    await job({ messageId: Number(payload?.messageId) });
    expect(sent).toHaveLength(1);
    const [mail] = sent;
    expect(mail).toMatchObject({ to: 'orders@shop.example', subject: 'New message from Eve Bcc: victim@example.com' });
    expect(mail?.text).toContain('Eve Bcc: victim@example.com <eve@example.com> wrote through the contact form:');
    expect(mail?.text).toContain('<script>alert(1)</script> Where is my order?');
    expect(mail?.text).toContain('https://shop.example/admin/messages');
    expect(mail?.html).not.toContain('<script>');
    expect(mail?.html).toContain('&#60;script&#62;');
  });
});
