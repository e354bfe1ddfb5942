// The orders as CSV for the accounts, streamed a batch at a time, and its route. Which orders count is the overview's
// business (sales.server.ts); the export lists every order in the range with its status, so the accounts can tell.
import { orderNumber, STATUS_LABELS, statusOf, variantLabel } from '@/features/orders/orders';
import { refundedCentsSql } from '@/features/orders/refunds.server';
import type { CookieJar } from '@/server/auth/auth.port';
import { jsonColumn, type Sql } from '@/server/db/database.server';
import { problem } from '@/server/http.server';
import { type AdminCaller, type AdminDeps, recordAction, requireAdminOf } from '../admin.server';
import { csvRow, csvStream } from '../csv.server';
import { type Cursor, isoText, seqOf } from '../paging.server';
import { addDays, decimalAmount, type ExportRange, exportRange, startOfDay, zonedDay, zonedIso } from './sales';

const at = (instant: Date) => instant.toISOString();
/** How many orders the export reads per query: the answer streams, so a long list is never held whole. */
export const ORDERS_EXPORT_BATCH = 500;

/**
 * The CSV's columns: one row per order, so that every amount is written once and each column adds up to the range's
 * total (one row per item would repeat the order's shipping, tax and refunds on each). The items are in one cell.
 * Amounts are US dollars as plain decimals; `placed_at` is the shop's clock with its offset, `date` the shop's day.
 * `subtotal` is the gross (the items at their prices); `discount` what the code and the automatic offer took off them
 * (`discount_code` names the code, if any); `net_sales` the two's difference; `shipping_discount` the shipping a
 * free-shipping code waived (not in `shipping`). So total = net_sales + shipping + tax, and net = total − refunded.
 * `returns` lists the order's returns where they stand ('RMA-1001 refunded (2 units)'): a return's refund is in
 * `refunded` like any other, and the order keeps its status.
 */
export const ORDERS_CSV_HEADER = [
  'order',
  'order_id',
  'placed_at',
  'date',
  'status',
  'customer',
  'email',
  'account',
  'items',
  'units',
  'subtotal',
  'discount_code',
  'discount',
  'net_sales',
  'shipping',
  'shipping_discount',
  'tax',
  'total',
  'refunded',
  'net',
  'returns',
] as const;

interface ExportRow {
  id: string;
  at: string;
  status: string;
  customer_name: string;
  customer_email: string;
  guest: boolean;
  subtotal_cents: number;
  discount_code: string | null;
  discount_cents: number;
  shipping_discount_cents: number;
  shipping_cents: number;
  tax_cents: number;
  total_cents: number;
  refunded_cents: number;
  items:
    | string
    | {
        name: string;
        sku: string;
        color: string | null;
        size: string | null;
        quantity: number;
        price_cents: number;
        discount_cents: number;
      }[];
  returns: string | { number: number; status: string; units: number }[];
}

/** The instants an export's range of the shop's days covers (null: no bound). */
function rangeBounds(range: ExportRange, timeZone: string): { start: string | null; end: string | null } {
  return {
    start: range.from ? at(startOfDay(range.from, timeZone)) : null,
    end: range.to ? at(startOfDay(addDays(range.to, 1), timeZone)) : null,
  };
}

const RANGE_SQL = `($1::text is null or o.created_at >= $1::text::timestamptz)
  and ($2::text is null or o.created_at < $2::text::timestamptz)`;

/** How many orders the range holds. */
export async function countOrdersIn(tx: Sql, range: ExportRange, timeZone: string): Promise<number> {
  const { start, end } = rangeBounds(range, timeZone);
  const [row] = await tx.query<{ n: number }>(`select count(*)::int as n from public.orders o where ${RANGE_SQL}`, [start, end]);
  return row?.n ?? 0;
}

/** A page of the range's orders, oldest first (as accounts are kept), after `after`. */
async function exportPage(tx: Sql, range: ExportRange, timeZone: string, limit: number, after: Cursor | undefined) {
  const { start, end } = rangeBounds(range, timeZone);
  return tx.query<ExportRow>(
    `with page as (
       select o.* from public.orders o
        where ${RANGE_SQL}
          and ($3::text is null or (o.created_at, o.seq) > ($3::text::timestamptz, ${seqOf('public.orders', '$4')}))
        order by o.created_at, o.seq
        limit $5)
     select o.id::text as id, ${isoText('o.created_at')} as at, o.status, o.customer_name, o.customer_email,
            o.user_id is null as guest, o.subtotal_cents, o.discount_code, o.discount_cents, o.shipping_discount_cents,
            o.shipping_cents, o.tax_cents, o.total_cents,
            ${refundedCentsSql('o.id')} as refunded_cents,
            coalesce((select json_agg(json_build_object('name', i.product_name, 'sku', i.product_sku,
                        'color', i.selected_color, 'size', i.selected_size, 'quantity', i.quantity,
                        'price_cents', i.price_cents, 'discount_cents', i.discount_cents) order by i.id)
                      from public.order_items i where i.order_id = o.id), '[]'::json) as items,
            coalesce((select json_agg(json_build_object('number', x.number, 'status', x.status,
                        'units', (select sum((e ->> 'quantity')::int) from jsonb_array_elements(x.items) e)) order by x.number)
                      from public.order_returns x where x.order_id = o.id), '[]'::json) as returns
       from page o
      order by o.created_at, o.seq`,
    [start, end, after?.at ?? null, after?.id ?? null, limit],
  );
}

/** One order's line of the CSV (written through csvRow, so no cell can start a formula). */
export function orderCsvLine(row: ExportRow, timeZone: string): string {
  const items = jsonColumn(row.items);
  const placed = new Date(row.at);
  return csvRow([
    orderNumber(row.id),
    row.id,
    zonedIso(placed, timeZone),
    zonedDay(placed, timeZone),
    STATUS_LABELS[statusOf(row.status)],
    row.customer_name,
    row.customer_email,
    row.guest ? 'guest' : 'account',
    items
      .map((i) => {
        const variant = variantLabel(i.color, i.size);
        // A line's share of the discount, when it has one: what a refund of that line gives back depends on it.
        const less = i.discount_cents > 0 ? ` less ${decimalAmount(i.discount_cents)}` : '';
        return `${i.quantity} x ${i.name}${variant ? ` (${variant})` : ''} [${i.sku}] @ ${decimalAmount(i.price_cents)}${less}`;
      })
      .join('; '),
    String(items.reduce((n, i) => n + i.quantity, 0)),
    decimalAmount(row.subtotal_cents),
    row.discount_code ?? '',
    decimalAmount(row.discount_cents),
    decimalAmount(row.subtotal_cents - row.discount_cents),
    decimalAmount(row.shipping_cents),
    decimalAmount(row.shipping_discount_cents),
    decimalAmount(row.tax_cents),
    decimalAmount(row.total_cents),
    decimalAmount(row.refunded_cents),
    decimalAmount(row.total_cents - row.refunded_cents),
    jsonColumn(row.returns)
      .map((r) => `RMA-${r.number} ${r.status} (${r.units} ${r.units === 1 ? 'unit' : 'units'})`)
      .join('; '),
  ]);
}

/**
 * The range's orders as CSV text, a batch at a time (each batch a short query of its own, so the export holds no
 * transaction open while the client reads slowly). The export is recorded as an admin action before the first byte.
 */
export async function ordersCsv(
  me: AdminCaller,
  range: ExportRange,
  timeZone: string,
  batch = ORDERS_EXPORT_BATCH,
): Promise<ReadableStream<Uint8Array>> {
  await me.run(async (tx) => {
    const rows = await countOrdersIn(tx, range, timeZone);
    await recordAction(tx, me.admin, { action: 'orders.export', target: 'orders', after: { rows, ...range } });
  });
  return csvStream<Cursor>(ORDERS_CSV_HEADER, async (after) => {
    const rows = await me.run((tx) => exportPage(tx, range, timeZone, batch, after));
    const last = rows.at(-1);
    return {
      lines: rows.map((r) => orderCsvLine(r, timeZone)),
      next: rows.length < batch || !last ? undefined : { at: last.at, id: last.id },
    };
  });
}

/** What the orders export needs of the running server. */
export interface OrdersCsvDeps extends AdminDeps {
  timeZone: string;
}

/**
 * GET /api/admin/orders.csv[?period=…|?from=…&to=…]: the orders as a CSV download. 404 for a caller who is no admin;
 * 400 with the reason for a range it cannot read. (A request another site's page made never gets here: the middleware
 * refuses every /api/admin request that says it came from another site.)
 */
export async function ordersCsvRoute(deps: OrdersCsvDeps, jar: CookieJar, request: Request, now = new Date()): Promise<Response> {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const asked = exportRange(new URL(request.url).searchParams, now, deps.timeZone);
  if (!asked.ok) return problem(400, 'invalid_request', asked.message);
  const { from, to } = asked.range;
  const name = from || to ? `${from ?? 'start'}-to-${to ?? zonedDay(now, deps.timeZone)}` : zonedDay(now, deps.timeZone);
  const headers = {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="aurelia-orders-${name}.csv"`,
    'cache-control': 'private, no-store',
  };
  // HEAD (answered by this GET) asks what a download would be: it exports nothing, so it records nothing.
  if (request.method === 'HEAD') return new Response(null, { headers });
  return new Response(await ordersCsv(me, asked.range, deps.timeZone), { headers });
}
