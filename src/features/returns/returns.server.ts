// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// Returns as the shopper sees and asks for them (decision 011). Whose order it is was decided before any of this runs
// (row-level security as the shopper, or the order link's token): these read and write as service_role, for that one
// order. What the owner does to a return is src/features/admin/returns/.
import type { CatalogueIndex } from '@/features/catalogue/catalogue';
import { orderNumber, variantLabel } from '@/features/orders/orders';
import { refundCountsSql } from '@/features/orders/refunds.server';
import { dateFormat } from '@/lib/dates';
import { type Database, jsonColumn, type Sql } from '@/server/db/database.server';
import { asService } from '@/server/db/roles.server';
import { queueJob } from '@/server/outbox/jobs.server';
import {
  MAX_RETURNS_PER_ORDER,
  type ReturnableLine,
  type ReturnKind,
  type ReturnReason,
  type ReturnStatus,
  type ReturnWindow,
  requestProblem,
  returnNumber,
  returnWindow,
  type Variant,
  type WantedUnits,
  windowProblem,
} from './returns';

/** A line of a return as order_returns.items keeps it. */
export interface ReturnItem {
  itemId: string;
  quantity: number;
  condition: 'resellable' | 'damaged' | null;
  /** ISO time it was received, or null. */
  receivedAt: string | null;
  /** An exchange's line: the colour and size the shopper wants instead. */
  exchangeFor?: Variant;
}

const iso = (value: Date | string | null) =>
  value === null ? null : value instanceof Date ? value.toISOString() : new Date(value).toISOString();

/**
 * Whether a line of an order cannot be returned because it was final sale when it was bought (order_items.final_sale,
 * recorded from the catalogue's `finalSale` with the order): the one place the rule is read.
 */
export const isFinalSaleLine = (line: { final_sale: boolean | null }): boolean => line.final_sale === true;

/** A return as the order's pages show it. */
export interface ReturnView {
  id: string;
  number: string;
  kind: ReturnKind;
  status: ReturnStatus;
  reason: ReturnReason;
  comment: string | null;
  declineReason: string | null;
  /** ISO times of each step reached (null for a step not reached). */
  at: Record<ReturnStatus, string | null>;
  items: {
    itemId: string;
    name: string;
    variant: string | null;
    quantity: number;
    condition: string | null;
    /** An exchange's line: the colour and size wanted instead ('grey, L'). */
    exchangeFor: string | null;
  }[];
  /** The return label, once bought: the shop's own PDF (served by /api/returns/{id}/label) or a carrier's page. */
  label: { kind: 'pdf' } | { kind: 'url'; url: string } | null;
  trackingNumber: string | null;
  /** What was refunded for it, once it is refunded. */
  refundedCents: number | null;
  /** An exchange's $0 replacement order, once sent: its id and number. */
  replacement: { id: string; number: string } | null;
}

/** An order's returns, the lines as a return reads them, and its window: what the order pages show. */
export interface OrderReturns {
  window: ReturnWindow;
  lines: ReturnableLine[];
  returns: ReturnView[];
  /** The order was refunded in full (nothing is left to give back). */
  refundedInFull: boolean;
}

/** SQL: the lines of order `$1` with what is in returns (not declined) and what was refunded of them apart. */
const LINES_SQL = `
  select i.id::text as item_id, i.product_id, i.product_name, i.selected_color, i.selected_size, i.quantity, i.final_sale,
         coalesce((select sum((e ->> 'quantity')::int) from public.order_returns r
                     cross join lateral jsonb_array_elements(r.items) e
                    where r.order_id = i.order_id and r.status <> 'declined' and e ->> 'itemId' = i.id::text), 0)::int
           as in_returns,
         coalesce((select sum((e ->> 'quantity')::int) from public.order_refunds f
                     cross join lateral jsonb_array_elements(f.items) e
                    where f.order_id = i.order_id and f.items is not null and ${refundCountsSql('f.status')}
                      and e ->> 'itemId' = i.id::text
                      and not exists (select 1 from public.order_returns r where r.refund_id = f.refund_id)), 0)::int
           as refunded_apart
    from public.order_items i where i.order_id = $1 order by i.id`;

async function linesOf(tx: Sql, orderId: string, catalogue: CatalogueIndex | null): Promise<ReturnableLine[]> {
  const rows = await tx.query<{
    item_id: string;
    product_id: number;
    product_name: string;
    selected_color: string | null;
    selected_size: string | null;
    quantity: number;
    final_sale: boolean | null;
    in_returns: number;
    refunded_apart: number;
  }>(LINES_SQL, [orderId]);
  return rows.map((r) => ({
    itemId: r.item_id,
    productId: r.product_id,
    name: r.product_name,
    variant: variantLabel(r.selected_color, r.selected_size),
    quantity: r.quantity,
    inReturns: r.in_returns,
    refundedApart: r.refunded_apart,
    finalSale: isFinalSaleLine(r),
    color: r.selected_color ?? '',
    size: r.selected_size ?? '',
    options: exchangeOptions(catalogue, r.product_id),
  }));
}

/** The colours and sizes a line's product can be exchanged for now; null: one kind only, or no longer sold. */
function exchangeOptions(catalogue: CatalogueIndex | null, productId: number): ReturnableLine['options'] {
  const product = catalogue?.get(productId);
  if (!product?.inStock || (product.colors.length === 0 && product.sizes.length === 0)) return null;
  return {
    colors: product.colors.map((value) => ({ value, name: product.colorNames[value] ?? value })),
    sizes: [...product.sizes],
  };
}

interface ReturnRow {
  id: string;
  number: string | number;
  kind: ReturnKind;
  status: ReturnStatus;
  reason: ReturnReason;
  comment: string | null;
  decline_reason: string | null;
  replacement_order_id: string | null;
  exchanged_at: Date | string | null;
  created_at: Date | string;
  approved_at: Date | string | null;
  received_at: Date | string | null;
  refunded_at: Date | string | null;
  declined_at: Date | string | null;
  label_url: string | null;
  label_tracking_number: string | null;
  has_pdf: boolean;
  refunded_cents: number | null;
  items:
    | string
    | {
        item_id: string;
        name: string;
        color: string | null;
        size: string | null;
        quantity: number;
        condition: string | null;
        exchange_for: Variant | null;
      }[];
}

/** SQL: the lines of return `r` with their names, as json [{item_id, name, color, size, quantity, condition}]. */
export const RETURN_ITEMS_SQL = `coalesce((select json_agg(json_build_object('item_id', e ->> 'itemId', 'name', i.product_name,
    'color', i.selected_color, 'size', i.selected_size, 'quantity', (e ->> 'quantity')::int, 'condition', e ->> 'condition',
    'exchange_for', e -> 'exchangeFor')
    order by (e ->> 'itemId')::bigint)
  from jsonb_array_elements(r.items) e
  join public.order_items i on i.id = (e ->> 'itemId')::bigint and i.order_id = r.order_id), '[]'::json)`;

/** SQL: the returns of the rows `where` finds (on `public.order_returns r`), as toView reads them. */
export const RETURN_COLUMNS = `r.id, r.number, r.kind, r.status, r.reason, r.comment, r.decline_reason, r.created_at,
  r.approved_at, r.received_at, r.refunded_at, r.exchanged_at, r.declined_at, r.label_url, r.label_tracking_number,
  r.replacement_order_id,
  exists (select 1 from public.return_labels l where l.return_id = r.id) as has_pdf,
  (select f.amount_cents from public.order_refunds f where f.refund_id = r.refund_id) as refunded_cents,
  ${RETURN_ITEMS_SQL} as items`;

export function toView(row: ReturnRow): ReturnView {
  return {
    id: row.id,
    number: returnNumber(row.number),
    kind: row.kind,
    status: row.status,
    reason: row.reason,
    comment: row.comment,
    declineReason: row.decline_reason,
    at: {
      requested: iso(row.created_at),
      approved: iso(row.approved_at),
      received: iso(row.received_at),
      refunded: iso(row.refunded_at),
      exchanged: iso(row.exchanged_at),
      declined: iso(row.declined_at),
    },
    items: jsonColumn(row.items).map((i) => ({
      itemId: i.item_id,
      name: i.name,
      variant: variantLabel(i.color, i.size),
      quantity: i.quantity,
      condition: i.condition,
      exchangeFor: i.exchange_for ? variantLabel(i.exchange_for.color || null, i.exchange_for.size || null) : null,
    })),
    label: row.has_pdf ? { kind: 'pdf' } : row.label_url ? { kind: 'url', url: row.label_url } : null,
    trackingNumber: row.label_tracking_number,
    refundedCents: row.refunded_cents,
    replacement: row.replacement_order_id
      ? { id: row.replacement_order_id, number: orderNumber(row.replacement_order_id) }
      : null,
  };
}

export type { ReturnRow };

/** The order's window, lines and returns, read as service_role for an order the caller may see; null: no such order. */
export async function returnsOfOrder(
  tx: Sql,
  orderId: string,
  now: Date,
  catalogue: CatalogueIndex | null = null,
): Promise<OrderReturns | null> {
  const [order] = await tx.query<{
    status: string | null;
    shipped_at: Date | string | null;
    delivered_at: Date | string | null;
    refunded_in_full: boolean;
  }>(
    `select o.status, o.shipped_at, o.delivered_at,
            (select coalesce(sum(f.amount_cents), 0) from public.order_refunds f
              where f.order_id = o.id and ${refundCountsSql('f.status')}) >= o.total_cents as refunded_in_full
       from public.orders o where o.id = $1`,
    [orderId],
  );
  if (!order) return null;
  const returns = await tx.query<ReturnRow>(
    `select ${RETURN_COLUMNS} from public.order_returns r where r.order_id = $1 order by r.number`,
    [orderId],
  );
  return {
    window: returnWindow({ status: order.status, shippedAt: iso(order.shipped_at), deliveredAt: iso(order.delivered_at) }, now),
    lines: await linesOf(tx, orderId, catalogue),
    returns: returns.map(toView),
    refundedInFull: order.refunded_in_full,
  };
}

/** A shopper's request: their form's key (a double click sends the same), the units, a reason and an optional note. */
export interface ReturnRequest {
  key: string;
  /** A refund (the default), or an exchange: each line names the colour and size wanted instead. */
  kind?: ReturnKind | undefined;
  reason: ReturnReason;
  comment?: string | undefined;
  items: WantedUnits[];
}

export type RequestResult =
  | { ok: true; changed: boolean; return: { id: string; number: string; status: ReturnStatus } }
  | { ok: false; status: 400 | 404 | 409; code: string; message: string };

/** The order page's token the confirmation e-mail carried, for the shopper's later e-mails to link with. */
export async function confirmationToken(tx: Sql, orderId: string): Promise<string | undefined> {
  const [row] = await tx.query<{ token: string | null }>(
    `select payload ->> 'accessToken' as token from public.outbox where dedupe_key = $1`,
    [`mail:customer:${orderId}`],
  );
  return row?.token ?? undefined;
}

/** The de-duplication key of a return's e-mail at one step: each step is told once. */
export const returnMailKey = (returnId: string, step: ReturnStatus) => `mail:return:${returnId}:${step}`;

/** Queues the shopper's e-mail of a return's step, once, in the transaction that made the step. */
export async function queueReturnMail(
  tx: Sql,
  { returnId, orderId, step, accessToken }: { returnId: string; orderId: string; step: ReturnStatus; accessToken?: string },
): Promise<void> {
  const token = accessToken ?? (await confirmationToken(tx, orderId));
  await queueJob(tx, 'return-email', { returnId, step, ...(token ? { accessToken: token } : {}) }, returnMailKey(returnId, step));
}

/**
 * Records a shopper's request to return `request.items` of order `orderId` (whose ownership the caller checked), once
 * per form key, and queues the e-mail that confirms it. Under the order's row lock, so two requests at once never
 * together ask back more than was bought. Refused in words: the window (closed, not shipped, cancelled), a final-sale
 * line, more units than are left, an order already refunded in full.
 */
export async function requestReturn(
  db: Database,
  orderId: string,
  request: ReturnRequest,
  {
    userId,
    now,
    timeZone,
    accessToken,
    catalogue,
  }: {
    userId: string | null;
    now: Date;
    timeZone: string;
    accessToken?: string | undefined;
    catalogue: CatalogueIndex | null;
  },
): Promise<RequestResult> {
  return asService(db, async (tx) => {
    const [order] = await tx.query<{ status: string | null; shipped_at: Date | null; delivered_at: Date | null }>(
      `select status, shipped_at, delivered_at from public.orders where id = $1 for update`,
      [orderId],
    );
    if (!order) return { ok: false, status: 404, code: 'not_found', message: 'No such order.' };
    const [earlier] = await tx.query<{ id: string; number: string; status: ReturnStatus }>(
      `select id, number::text, status from public.order_returns where order_id = $1 and request_key = $2`,
      [orderId, request.key],
    );
    if (earlier) return { ok: true, changed: false, return: { ...earlier, number: returnNumber(earlier.number) } };
    const state = await returnsOfOrder(tx, orderId, now, catalogue);
    const kind = request.kind ?? 'return';
    if (!state) return { ok: false, status: 404, code: 'not_found', message: 'No such order.' };
    const { window } = state;
    if (window.state !== 'open') {
      const day = (at: string) => dateFormat(timeZone).format(new Date(at));
      return { ok: false, status: 409, code: 'window_closed', message: windowProblem(window, day) ?? 'Returns are closed.' };
    }
    if (state.refundedInFull)
      return { ok: false, status: 409, code: 'refunded', message: 'This order has been refunded in full already.' };
    if (state.returns.length >= MAX_RETURNS_PER_ORDER)
      return {
        ok: false,
        status: 409,
        code: 'too_many_returns',
        message: 'This order has had too many return requests. Please contact us and we will sort it out.',
      };
    const problem = requestProblem(state.lines, request.items, kind);
    if (problem) {
      const finalSale = request.items.some((w) => state.lines.find((l) => l.itemId === w.itemId)?.finalSale);
      return { ok: false, status: 400, code: finalSale ? 'final_sale' : 'invalid_items', message: problem };
    }
    const items: ReturnItem[] = request.items.map((i) => ({
      itemId: i.itemId,
      quantity: i.quantity,
      condition: null,
      receivedAt: null,
      ...(kind === 'exchange' && i.exchangeFor ? { exchangeFor: i.exchangeFor } : {}),
    }));
    const [created] = await tx.query<{ id: string; number: string }>(
      `insert into public.order_returns (order_id, request_key, reason, comment, requested_by, items, kind)
       values ($1, $2, $3, $4, $5, $6::text::jsonb, $7) returning id, number::text`,
      [orderId, request.key, request.reason, request.comment || null, userId, JSON.stringify(items), kind],
    );
    if (!created) throw new Error('the return was not recorded');
    await queueReturnMail(tx, { returnId: created.id, orderId, step: 'requested', ...(accessToken ? { accessToken } : {}) });
    return {
      ok: true,
      changed: true,
      return: { id: created.id, number: returnNumber(created.number), status: 'requested' as const },
    };
  });
}
