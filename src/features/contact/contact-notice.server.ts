import type { Database } from '@/server/db/database.server';
import { serviceStatement } from '@/server/db/roles.server';
import { escapeHtml } from '@/server/mail/escape.server';
import type { MailMessage, MailPort } from '@/server/mail/mail.port';

interface StoredMessage {
  name: string;
  email: string;
  message: string;
}

/**
 * The shop's copy of a contact message. It goes only to the shop's own address (never to one a visitor typed), so it
 * may quote the visitor: every value is escaped in the HTML, and the subject is one line.
 */
export function contactNoticeEmail(to: string, m: StoredMessage, adminLink: string): MailMessage {
  const name = m.name.replace(/\s+/g, ' ').trim().slice(0, 80);
  const intro = `${name} <${m.email}> wrote through the contact form:`;
  const outro = `Reply to ${m.email}, or read it with the other messages: ${adminLink}`;
  return {
    to,
    subject: `New message from ${name}`,
    text: `${intro}\n\n${m.message}\n\n${outro}\n`,
    html: `<!doctype html><html><body style="font-family:Georgia,serif;color:#2b2420;max-width:560px">
<p>${escapeHtml(intro)}</p>
<blockquote style="white-space:pre-wrap;border-left:3px solid #e8dfd5;margin:0;padding-left:12px">${escapeHtml(m.message)}</blockquote>
<p>Reply to <a href="mailto:${escapeHtml(encodeURIComponent(m.email).replace(/%40/g, '@'))}">${escapeHtml(m.email)}</a>, or <a href="${escapeHtml(adminLink)}">read it with the other messages</a>.</p>
</body></html>`,
  };
}

/** The 'contact-notice' job: e-mails the shop a contact message (a message deleted since is not sent). */
export function contactNoticeJob(deps: { db: Database; mail: MailPort; shopEmail: string; publicOrigin: string }) {
  return async ({ messageId }: { messageId: number }) => {
    const [message] = await serviceStatement<StoredMessage>(
      deps.db,
      'select name, email, message from public.contact_messages where id = $1',
      [messageId],
    );
    if (!message) return;
    await deps.mail.send(contactNoticeEmail(deps.shopEmail, message, `${deps.publicOrigin}/admin/messages`));
  };
}
