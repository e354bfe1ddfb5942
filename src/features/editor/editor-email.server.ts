import type { Database } from '@/server/db/database.server';
import { serviceStatement } from '@/server/db/roles.server';
import { escapeHtml } from '@/server/mail/escape.server';
import type { MailMessage, MailPort } from '@/server/mail/mail.port';
import type { JobPayload } from '@/server/outbox/jobs.server';

// The e-mail telling an account an admin granted it the editor role: queued with the grant (editors.server.ts), once
// per grant, and sent with the link to the catalogue editor and where the shop's header shows it.

/** The e-mail: who granted the role, what it lets them do, and the way in. */
export function editorRoleEmail(to: string, grantedBy: string, catalogueLink: string): MailMessage {
  const lines = [
    `${grantedBy} gave your Aurelia account (${to}) the editor role: you can now change the shop’s products, prices and pictures, and publish your changes for shoppers.`,
    'Sign in to the shop with this address: the Admin link at the top of every page (in the menu on a phone) then takes you to the catalogue editor.',
  ];
  return {
    to,
    subject: 'You can now edit the Aurelia catalogue',
    text: `${lines.join('\n\n')}\n\nOpen the catalogue editor: ${catalogueLink}\n`,
    html: `<!doctype html><html><body style="font-family:Georgia,serif;color:#2b2420;max-width:560px">
${lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n')}
<p><a href="${escapeHtml(catalogueLink)}">Open the catalogue editor</a></p>
</body></html>`,
  };
}

/** The 'editor-role-email' job: e-mails the account, unless the role was taken away again before it was sent. */
export function editorRoleEmailJob(deps: { db: Database; mail: MailPort; publicOrigin: string }) {
  return async ({ userId }: JobPayload<'editor-role-email'>) => {
    const [row] = await serviceStatement<{ email: string; granted_by_email: string }>(
      deps.db,
      `select u.email, e.granted_by_email from public.shop_editors e join auth.users u on u.id = e.user_id
        where e.user_id = $1`,
      [userId],
    );
    if (!row) return;
    await deps.mail.send(editorRoleEmail(row.email, row.granted_by_email, `${deps.publicOrigin}/admin/catalogue`));
  };
}
