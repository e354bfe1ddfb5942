import type { Database } from '@/server/db/database.server';
import { serviceStatement } from '@/server/db/roles.server';
import { escapeHtml } from '@/server/mail/escape.server';
import type { MailMessage, MailPort } from '@/server/mail/mail.port';
import type { JobPayload } from '@/server/outbox/jobs.server';

// The shop's low-stock e-mail: queued by the database with the sale that left a counted item at the owner's threshold
// or below, once per crossing (migration 20261205090000), and sent to the shop's own address (SHOP_ADMIN_EMAIL, where
// its copy of each order goes).

type LowStock = JobPayload<'low-stock-email'>;

const left = (n: number) => (n === 0 ? 'out of stock' : `down to ${n}`);

/** The e-mail: which item, how many the sale left (and how many now, when more sold since), and where to restock. */
export function lowStockEmail(to: string, item: LowStock, now: number | null, stockLink: string): MailMessage {
  const since = now !== null && now < item.onHand ? ` It is ${left(now)} now.` : '';
  const lines = [
    `${item.label} is ${left(item.onHand)}: at or below your low-stock threshold of ${item.threshold}.${since}`,
    'You are told once: further sales send nothing until it is restocked above the threshold.',
  ];
  return {
    to,
    subject: `Low stock: ${item.label} is ${left(item.onHand)}`,
    text: `${lines.join('\n\n')}\n\nChange the counts: ${stockLink}\n`,
    html: `<!doctype html><html><body style="font-family:Georgia,serif;color:#2b2420;max-width:560px">
${lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n')}
<p><a href="${escapeHtml(stockLink)}">Change the counts</a></p>
</body></html>`,
  };
}

/** The 'low-stock-email' job: e-mails the shop, with the item's count as it is when the e-mail is sent. */
export function lowStockEmailJob(deps: { db: Database; mail: MailPort; shopEmail: string; publicOrigin: string }) {
  return async (item: LowStock) => {
    const [row] = await serviceStatement<{ on_hand: number }>(
      deps.db,
      'select on_hand from public.stock_levels where product_id = $1 and color = $2 and size = $3',
      [item.productId, item.color, item.size],
    );
    await deps.mail.send(lowStockEmail(deps.shopEmail, item, row?.on_hand ?? null, `${deps.publicOrigin}/admin/stock`));
  };
}
