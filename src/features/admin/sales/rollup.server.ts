// The totals kept per day (app_private.sales_days, sales_day_items and sales_day_customers), written by the database
// with every order, refund and cancellation (migration 20261130080000_sales_rollup.sql): the read models in
// sales.server.ts add whole days up from them instead of from every order.
import type { Database, Sql } from '@/server/db/database.server';
import { serviceStatement } from '@/server/db/roles.server';

/**
 * Whether the totals kept per day (app_private.sales_days, sales_day_items and sales_day_customers, written with every
 * order, refund and cancellation) are in `timeZone`: they are in the shop's, which the server sets at start. Another
 * zone (a test asking for UTC) is answered from the orders themselves.
 */
export async function rolledUpIn(tx: Sql, timeZone: string): Promise<boolean> {
  const [row] = await tx.query<{ time_zone: string }>('select time_zone from app_private.sales_zone');
  return row?.time_zone === timeZone;
}

/**
 * Puts the day totals in the shop's time zone, rebuilding them from the orders when they are in another (the owner
 * changed SHOP_TIME_ZONE). Run at start, after the migrations; returns whether it rebuilt them.
 */
export async function keepSalesTotalsIn(db: Database, timeZone: string): Promise<boolean> {
  const [row] = await serviceStatement<{ rebuilt: boolean }>(db, 'select app_private.sales_use_zone($1) as rebuilt', [timeZone]);
  return row?.rebuilt ?? false;
}
