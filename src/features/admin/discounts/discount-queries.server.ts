// What the owner reads of discount codes and the automatic offer: every code with its uses, one code's orders and
// what they brought in, and the offer as it stands. Read as service_role through the admin's `run` (the tables are
// server-only). A use counts as the shop counts it when pricing (decision 009): used, or held and not lapsed.
import { orderNumber } from '@/features/orders/orders';
import { refundedCentsSql } from '@/features/orders/refunds.server';
import { jsonColumn, type Sql } from '@/server/db/database.server';
import { storedSpellings } from '../orders/order-admin';
import { isoText } from '../paging.server';
import type { AdminCode, AdminOffer, CodeOrder, CodeReport } from './discounts-admin';

/** The most codes the list shows (newest first, those still running before ended ones). */
export const MAX_LISTED_CODES = 500;
/** The most orders a code's page lists (the latest); the figures count them all. */
export const CODE_ORDERS_LISTED = 50;

/** The stored spellings of a cancelled order, as SQL literals (constants, never user input). */
const CANCELLED = storedSpellings('cancelled')
  .map((s) => `'${s}'`)
  .join(', ');

interface CodeRow {
  id: string;
  code: string;
  kind: AdminCode['kind'];
  percent: number | null;
  amount_cents: number | null;
  min_subtotal_cents: number | null;
  starts_at: string | null;
  ends_at: string | null;
  usage_limit: number | null;
  per_customer_limit: number | null;
  product_ids: number[] | string;
  categories: string[] | string;
  status: AdminCode['status'];
  created_at: string;
  version: string;
  held: number;
  used: number;
}

/** SQL: a code's columns as CodeRow reads them, from `public.discount_codes c`. Arrays as JSON, read alike by both drivers. */
const CODE_COLUMNS = `c.id::text as id, c.code, c.kind, c.percent, c.amount_cents, c.min_subtotal_cents,
  ${isoText('c.starts_at')} as starts_at, ${isoText('c.ends_at')} as ends_at, c.usage_limit, c.per_customer_limit,
  to_json(c.product_ids) as product_ids, to_json(c.categories) as categories, c.status,
  ${isoText('c.created_at')} as created_at, ${isoText('c.updated_at')} as version,
  (select count(*) from public.discount_redemptions r
    where r.code_id = c.id and r.state = 'held' and r.expires_at > now())::int as held,
  (select count(*) from public.discount_redemptions r where r.code_id = c.id and r.state = 'used')::int as used`;

function adminCode(row: CodeRow): AdminCode {
  return {
    id: row.id,
    code: row.code,
    kind: row.kind,
    percent: row.percent,
    amountCents: row.amount_cents,
    minSubtotalCents: row.min_subtotal_cents,
    startsAt: row.starts_at,
    endsAt: row.ends_at,
    usageLimit: row.usage_limit,
    perCustomerLimit: row.per_customer_limit,
    productIds: jsonColumn(row.product_ids) as number[],
    categories: jsonColumn(row.categories) as string[],
    status: row.status,
    createdAt: row.created_at,
    version: row.version,
    held: Number(row.held),
    used: Number(row.used),
  };
}

/** Every code (at most MAX_LISTED_CODES): those not ended first, newest first within each. */
export async function listCodes(tx: Sql): Promise<AdminCode[]> {
  const rows = await tx.query<CodeRow>(
    `select ${CODE_COLUMNS} from public.discount_codes c
      order by c.status = 'ended', c.created_at desc, c.code limit $1`,
    [MAX_LISTED_CODES],
  );
  return rows.map(adminCode);
}

/** One code by its id (a UUID the caller has checked), or null. `lock`: for an update in the same transaction. */
export async function codeById(tx: Sql, id: string, { lock = false } = {}): Promise<AdminCode | null> {
  const [row] = await tx.query<CodeRow>(
    `select ${CODE_COLUMNS} from public.discount_codes c where c.id = $1 ${lock ? 'for update of c' : ''}`,
    [id],
  );
  return row ? adminCode(row) : null;
}

interface OrderRow {
  id: string;
  created_at: string;
  customer_name: string;
  status: string;
  total_cents: number;
  refunded_cents: number;
  discount_cents: number;
}

/**
 * A code's page: the code, its latest orders, and over all its orders not cancelled what customers paid (less what was
 * refunded) and what the code took off. Read from the orders as they were recorded (the code's part of the goods'
 * discount, the shipping it waived), so a later edit of the code changes none of it.
 */
export async function codeReport(tx: Sql, id: string): Promise<CodeReport | null> {
  const code = await codeById(tx, id);
  if (!code) return null;
  // The code's part of an order: the goods' discount less the offer's part, and the shipping it waived.
  const codePart = '(o.discount_cents - o.offer_cents + o.shipping_discount_cents)';
  const orders = await tx.query<OrderRow>(
    `select o.id::text as id, ${isoText('o.created_at')} as created_at, o.customer_name, o.status, o.total_cents,
            ${refundedCentsSql('o.id')} as refunded_cents, ${codePart} as discount_cents
       from public.orders o where o.discount_code = $1
      order by o.created_at desc, o.seq desc limit $2`,
    [code.code, CODE_ORDERS_LISTED],
  );
  const [sums] = await tx.query<{ all_orders: number; orders: number; revenue: unknown; given: unknown }>(
    `select count(*)::int as all_orders,
            (count(*) filter (where o.status not in (${CANCELLED})))::int as orders,
            coalesce(sum(o.total_cents - ${refundedCentsSql('o.id')}) filter (where o.status not in (${CANCELLED})), 0)::bigint
              as revenue,
            coalesce(sum(${codePart}) filter (where o.status not in (${CANCELLED})), 0)::bigint as given
       from public.orders o where o.discount_code = $1`,
    [code.code],
  );
  return {
    code,
    orders: orders.map(
      (o): CodeOrder => ({
        id: o.id,
        number: orderNumber(o.id),
        createdAt: o.created_at,
        customerName: o.customer_name,
        status: o.status,
        totalCents: Number(o.total_cents),
        refundedCents: Number(o.refunded_cents),
        discountCents: Number(o.discount_cents),
      }),
    ),
    moreOrders: Math.max(0, Number(sums?.all_orders ?? 0) - orders.length),
    orderCount: Number(sums?.orders ?? 0),
    revenueCents: Number(sums?.revenue ?? 0),
    discountGivenCents: Number(sums?.given ?? 0),
  };
}

/** The automatic offer as it stands (on or off). `lock`: for an update in the same transaction. */
export async function offerRow(tx: Sql, { lock = false } = {}): Promise<AdminOffer> {
  const [row] = await tx.query<{ threshold_cents: number; percent: number; active: boolean; combines: boolean; version: string }>(
    `select threshold_cents, percent, active, combines, ${isoText('updated_at')} as version
       from public.discount_offer ${lock ? 'for update' : ''}`,
  );
  if (!row) throw new Error('The automatic offer’s row is missing (migration 20261202090000 inserts it).');
  return {
    thresholdCents: row.threshold_cents,
    percent: row.percent,
    active: row.active,
    combines: row.combines,
    version: row.version,
  };
}
