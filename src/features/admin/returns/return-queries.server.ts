// What the admin reads of returns: the list with a count per status, one return's page, and the returns of an order.
// Every query runs as service_role through the admin's `run`. What an admin does to a return is
// return-actions.server.ts.
import { orderNumber } from '@/features/orders/orders';
import { RETURN_STATUSES, type ReturnKind, type ReturnReason, type ReturnStatus, returnNumber } from '@/features/returns/returns';
import { RETURN_COLUMNS, type ReturnRow, type ReturnView, toView } from '@/features/returns/returns.server';
import type { Sql } from '@/server/db/database.server';
import { type Cursor, isoText, type Page, toPage } from '../paging.server';
import { type ReturnListQuery, WAITING } from './returns-admin';

/** A return as the admin's list shows it. */
export interface AdminReturnRow {
  id: string;
  number: string;
  /** ISO time it was asked for, to the microsecond (the page cursor). */
  createdAt: string;
  orderId: string;
  orderNumber: string;
  customerName: string;
  customerEmail: string;
  guest: boolean;
  /** Pieces asked back. */
  units: number;
  reason: ReturnReason;
  kind: ReturnKind;
  status: ReturnStatus;
}

/** SQL for the return number of the row of order_returns whose id is the parameter: ties of one time go by it. */
const numberOf = (param: string) =>
  `coalesce((select number from public.order_returns where id = ${param}::uuid), 9223372036854775807)`;

/** One page of returns, newest first, all or of one status: `limit` rows and the cursor of the next page. */
export async function listReturnsForAdmin(
  tx: Sql,
  query: ReturnListQuery,
  { limit, after }: { limit: number; after?: Cursor | undefined },
): Promise<Page<AdminReturnRow>> {
  const rows = await tx.query<{
    id: string;
    number: string;
    at: string;
    order_id: string;
    customer_name: string;
    customer_email: string;
    guest: boolean;
    units: number;
    reason: ReturnReason;
    kind: ReturnKind;
    status: ReturnStatus;
  }>(
    `select r.id, r.number::text as number, ${isoText('r.created_at')} as at, r.order_id, o.customer_name,
            o.customer_email, o.user_id is null as guest, r.reason, r.kind, r.status,
            (select coalesce(sum((e ->> 'quantity')::int), 0)::int from jsonb_array_elements(r.items) e) as units
       from public.order_returns r join public.orders o on o.id = r.order_id
      where ($1::text is null or r.status = $1)
        and ($2::text is null or (r.created_at, r.number) < ($2::text::timestamptz, ${numberOf('$3')}))
      order by r.created_at desc, r.number desc
      limit $4`,
    [query.status, after?.at ?? null, after?.id ?? null, limit + 1],
  );
  const returns = rows.map((r) => ({
    id: r.id,
    number: returnNumber(r.number),
    createdAt: r.at,
    orderId: r.order_id,
    orderNumber: orderNumber(r.order_id),
    customerName: r.customer_name,
    customerEmail: r.customer_email,
    guest: r.guest,
    units: r.units,
    reason: r.reason,
    kind: r.kind,
    status: r.status,
  }));
  return toPage(returns, limit, (r) => ({ at: r.createdAt, id: r.id }));
}

/** How many returns are in each status. */
export async function countReturnsByStatus(tx: Sql): Promise<Record<ReturnStatus, number>> {
  const rows = await tx.query<{ status: ReturnStatus; n: number }>(
    'select status, count(*)::int as n from public.order_returns group by status',
  );
  const counts = Object.fromEntries(RETURN_STATUSES.map((s) => [s, 0])) as Record<ReturnStatus, number>;
  for (const row of rows) counts[row.status] = row.n;
  return counts;
}

/** Returns waiting for the owner (a request to decide on, items received to refund), for the navigation's count. */
export async function countWaitingReturns(tx: Sql): Promise<number> {
  const [row] = await tx.query<{ n: number }>(
    `select count(*)::int as n from public.order_returns where status in (select jsonb_array_elements_text($1::text::jsonb))`,
    [JSON.stringify(WAITING)],
  );
  return row?.n ?? 0;
}

/** A return as its admin page shows it: the shopper's view, with its order and customer. */
export interface AdminReturnDetail extends ReturnView {
  orderId: string;
  orderNumber: string;
  customerName: string;
  customerEmail: string;
  guest: boolean;
  /** A refund under way (asked of the processor, its answer not recorded): its amount; else null. */
  refundingCents: number | null;
}

export async function returnForAdmin(tx: Sql, returnId: string): Promise<AdminReturnDetail | null> {
  const [row] = await tx.query<
    ReturnRow & { order_id: string; customer_name: string; customer_email: string; guest: boolean; refunding: number | null }
  >(
    `select ${RETURN_COLUMNS}, r.order_id, o.customer_name, o.customer_email, o.user_id is null as guest,
            case when r.refund_key is not null and r.refund_id is null then r.refund_amount_cents end as refunding
       from public.order_returns r join public.orders o on o.id = r.order_id where r.id = $1`,
    [returnId],
  );
  if (!row) return null;
  return {
    ...toView(row),
    orderId: row.order_id,
    orderNumber: orderNumber(row.order_id),
    customerName: row.customer_name,
    customerEmail: row.customer_email,
    guest: row.guest,
    refundingCents: row.refunding,
  };
}

/** An order's returns, oldest first, for its admin page. */
export async function returnsOfOrderForAdmin(tx: Sql, orderId: string): Promise<ReturnView[]> {
  const rows = await tx.query<ReturnRow>(
    `select ${RETURN_COLUMNS} from public.order_returns r where r.order_id = $1 order by r.number`,
    [orderId],
  );
  return rows.map(toView);
}
