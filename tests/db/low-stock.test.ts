/**
 * The shop's low-stock e-mail (issue 43, part 4) on a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL,
 * where concurrent checkouts really overlap): a sale that leaves a counted item at the owner's threshold or below
 * queues one e-mail to the shop; further sales queue none; a count back above the threshold arms it again. Two
 * checkouts crossing at once queue one.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { AdminCaller } from '@/features/admin/admin.server';
import { cancelOrder } from '@/features/admin/orders/order-actions.server';
import { lowStockEmailJob } from '@/features/admin/stock/low-stock-email.server';
import { saveStock } from '@/features/admin/stock/stock-admin.server';
import { asService } from '@/server/db/roles.server';
import type { MailMessage } from '@/server/mail/mail.port';
import { JOBS } from '@/server/outbox/jobs.server';
import { createTestProcessor } from '@/server/payments/test-processor.server';
import { type Line, orderFixtures } from './order-fixtures';
import { newShopper } from './shopper-fixtures';
import { suiteDatabase, TEST_DATABASE_KIND } from './test-database';

const db = suiteDatabase();
const { buy, catalogue } = orderFixtures(db);
const scrubs = (quantity = 1, color = 'blue', size = 'M'): Line => ({
  productId: 3,
  quantity,
  selectedColor: color,
  selectedSize: size,
});

let me: AdminCaller;
beforeEach(async () => {
  const owner = await newShopper(db, 'owner');
  me = { admin: { id: owner.sub, email: owner.email }, run: (fn) => asService(db, fn) };
});

/** Sets a count and the threshold as the owner does on /admin/stock. */
async function owner(line: Line, onHand: number | null, lowStockThreshold?: number) {
  const result = await saveStock(me, catalogue, {
    counts: [{ productId: line.productId, selectedColor: line.selectedColor, selectedSize: line.selectedSize, onHand }],
    ...(lowStockThreshold === undefined ? {} : { lowStockThreshold }),
  });
  if (!result.ok) throw new Error(result.message);
}

const notices = (line: Line) =>
  db.query<{ payload: unknown }>(
    `select payload from public.outbox where kind = 'low-stock-email' and payload ->> 'productId' = $1
        and payload ->> 'color' = $2 and payload ->> 'size' = $3 order by id`,
    [String(line.productId), line.selectedColor ?? '', line.selectedSize ?? ''],
  );

describe(`the low-stock e-mail on ${TEST_DATABASE_KIND}`, () => {
  it('is queued once, by the sale that crosses the threshold, and again only after a restock above it', async () => {
    const item = scrubs(1, 'grey', 'S');
    await owner(item, 5, 3);
    await buy({ lines: [item] });
    expect(await notices(item)).toEqual([]);
    await buy({ lines: [item] });
    const [notice, ...more] = await notices(item);
    expect(more).toEqual([]);
    expect(notice?.payload).toEqual({
      productId: 3,
      color: 'grey',
      size: 'S',
      label: 'Clinical Scrubs (Grey, S)',
      onHand: 3,
      threshold: 3,
    });
    expect(JOBS['low-stock-email'].safeParse(notice?.payload).success).toBe(true);
    // Further sales, down to none: nothing more.
    await buy({ lines: [scrubs(2, 'grey', 'S')] });
    await buy({ lines: [item] });
    expect(await notices(item)).toHaveLength(1);

    // Restocked to the threshold only: still low, nothing sent, nothing armed.
    await owner(item, 3);
    await buy({ lines: [item] });
    expect(await notices(item)).toHaveLength(1);
    // Restocked above it: the next crossing e-mails again.
    await owner(item, 4);
    await buy({ lines: [item] });
    expect(await notices(item)).toHaveLength(2);
  });

  it('the owner’s own count change e-mails nothing; the next sale at or below the threshold does', async () => {
    const item = scrubs(1, 'blue', 'L');
    await owner(item, 20, 3);
    await owner(item, 2);
    expect(await notices(item)).toEqual([]);
    await buy({ lines: [item] });
    expect((await notices(item)).map((n) => (n.payload as { onHand: number }).onHand)).toEqual([1]);
  });

  it('a cancelled order’s items put back above the threshold arm it again', async () => {
    const item = scrubs(1, 'powder-blue', 'M');
    await owner(item, 5, 3);
    const first = await buy({ lines: [scrubs(2, 'powder-blue', 'M')] });
    expect(await notices(item)).toHaveLength(1);
    const cancelled = await cancelOrder(me, createTestProcessor(db), first.id, { restock: true });
    expect(cancelled.ok).toBe(true);
    await buy({ lines: [scrubs(2, 'powder-blue', 'M')] });
    expect(await notices(item)).toHaveLength(2);
  });

  it('checkouts crossing at once queue one e-mail', async () => {
    const item = scrubs(1, 'black', 'XL');
    await owner(item, 6, 4);
    // Each of five sales may be the one that crosses (6 → 1): the database lets one.
    await Promise.all(Array.from({ length: 5 }, () => buy({ lines: [item] })));
    const [row] = await db.query<{ on_hand: number }>(
      `select on_hand from public.stock_levels where product_id = 3 and color = 'black' and size = 'XL'`,
    );
    expect(row?.on_hand).toBe(1);
    expect(await notices(item)).toHaveLength(1);
  });

  it('goes to the shop’s address, names the item and its count, and links to the stock page', async () => {
    const sent: MailMessage[] = [];
    const mail = { name: 'capture', send: async (m: MailMessage) => void sent.push(m) };
    const item = scrubs(1, 'grey', 'S');
    await owner(item, 1);
    await lowStockEmailJob({ db, mail, shopEmail: 'orders@shop.test', publicOrigin: 'http://shop.test' })({
      productId: 3,
      color: 'grey',
      size: 'S',
      label: 'Clinical Scrubs (Grey, S) <b>',
      onHand: 3,
      threshold: 3,
    });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ to: 'orders@shop.test', subject: 'Low stock: Clinical Scrubs (Grey, S) <b> is down to 3' });
    expect(sent[0]?.text).toContain('at or below your low-stock threshold of 3. It is down to 1 now.');
    expect(sent[0]?.text).toContain('http://shop.test/admin/stock');
    expect(sent[0]?.html).toContain('Clinical Scrubs (Grey, S) &#60;b&#62;');
  });
});
