import type { NavCount } from '@/features/admin/admin';
import type { Sql } from '@/server/db/database.server';
import { countMessages, countUnreadMessages } from './messages/messages.server';
import { countWaitingReturns } from './returns/return-queries.server';
import { countPendingReviews } from './reviews/moderation.server';
import { countLowStock } from './stock/stock-admin.server';
import { countSubscribers } from './subscribers/subscribers.server';

/** The work waiting in the admin, counted beside its sections in the navigation (partial indexes keep these cheap). */
export async function navCounts(tx: Sql): Promise<Record<NavCount, number>> {
  return {
    pendingReviews: await countPendingReviews(tx),
    unreadMessages: await countUnreadMessages(tx),
    lowStock: await countLowStock(tx),
    waitingReturns: await countWaitingReturns(tx),
  };
}

/** The overview's numbers. */
export async function overviewCounts(tx: Sql) {
  const [orders] = await tx.query<{ processing: number }>(
    `select count(*)::int as processing from public.orders where status = 'processing'`,
  );
  return {
    pendingReviews: await countPendingReviews(tx),
    processingOrders: orders?.processing ?? 0,
    messages: await countMessages(tx),
    subscribers: await countSubscribers(tx),
  };
}
