import { variantLabel } from '@/features/orders/orders';
import { refundCountsSql } from '@/features/orders/refunds.server';
import type { Sql } from '@/server/db/database.server';
import type { AdminCaller } from '../admin.server';
import { storedSpellings } from '../orders/order-admin';
import { rolledUpIn } from './rollup.server';
import { type Day, type SalesPeriod, type Span, salesPeriod, startOfDay } from './sales';

// What sold: the overview's figures for a period and the one before it (the orders as CSV are orders-csv.server.ts). Every
// figure is added up by the database, never by reading every order into the server: whole days from the totals kept
// per day as orders, refunds and cancellations are written (migration 20261130080000_sales_rollup.sql, which repeats
// the rules below in SQL; tests/db/sales-rollup.test.ts holds the two to the same numbers), each span's last day (it
// ends at now) from its orders. Money is integer cents until it is written.
//
// What counts, in one place (the page says the same):
// - An order counts on the shop's day it was placed (SHOP_TIME_ZONE), in the period it was placed in.
// - Revenue is what customers paid (the order total: items, shipping and sales tax) less what has been refunded of it
//   (refunds pending or succeeded: refundCountsSql), whenever the refund was made.
// - Gross sales are the items at their prices (the orders' subtotals); discounts what codes and the automatic offer
//   took off them; net sales gross less discounts (before shipping, tax and refunds). Shipping a free-shipping code
//   waived is counted apart: it was never in the orders' totals.
// - Cancelled orders are left out of revenue, orders, units, the average and the top products; their refunds are
//   counted under refunds, and how many were cancelled is shown beside them.
// - A new customer is an e-mail address (guest or account, in any case) whose first order that was not cancelled was
//   placed in the period.

/** The stored spellings of a cancelled order, as SQL literals (constants, never user input). */
const CANCELLED = storedSpellings('cancelled')
  .map((s) => `'${s}'`)
  .join(', ');

/** One period's figures. */
export interface SalesFigures {
  /** Orders placed and not cancelled. */
  orders: number;
  /** Their totals less what has been refunded of them. */
  revenueCents: number;
  /** The shipping and sales tax charged on them (in their totals, before refunds). */
  shippingCents: number;
  taxCents: number;
  /** The items at their prices, what codes and the offer took off them, and the difference (before shipping and tax). */
  grossCents: number;
  discountCents: number;
  netSalesCents: number;
  /** The shipping free-shipping codes waived on them. */
  shippingDiscountCents: number;
  /** Revenue ÷ orders, to the cent (0 without orders). */
  averageCents: number;
  /** Pieces sold on them (refunds are of money, not of items: a partial refund leaves the units as they were). */
  units: number;
  /** Refunds (pending or succeeded) of orders placed in the period, cancelled ones included, and their sum. */
  refunds: number;
  refundedCents: number;
  /** Orders placed in the period and since cancelled. */
  cancelled: number;
  /** Different customers (e-mail addresses) with an order, and how many of them ordered for the first time. */
  customers: number;
  newCustomers: number;
}

/** One of the shop's days in a period. */
export interface SalesDay {
  day: Day;
  orders: number;
  revenueCents: number;
  units: number;
}

/** A product or variant among the best sellers: pieces sold, and what they sold for (item prices, before shipping, tax and refunds). */
export interface TopSeller {
  productId: number;
  name: string;
  /** 'Blue, M' for a variant; null for a product (or an item with neither colour nor size). */
  variant: string | null;
  units: number;
  salesCents: number;
}

export type TopOrder = 'units' | 'revenue';
export const TOP_ORDERS: readonly TopOrder[] = ['units', 'revenue'];
/** How many best sellers each table lists. */
export const TOP_COUNT = 10;

export interface SalesOverview {
  period: SalesPeriod;
  current: SalesFigures;
  previous: SalesFigures;
  /** Every day of each span, in order, days without orders included. */
  days: SalesDay[];
  previousDays: SalesDay[];
  products: TopSeller[];
  variants: TopSeller[];
  /** How many of each span's refunds were of returns (decision 011): a return is a refund, never a cancelled sale. */
  returnRefunds: { current: number; previous: number };
}

const num = (value: unknown) => Number(value ?? 0);
const at = (instant: Date) => instant.toISOString();

/**
 * SQL for the orders placed in either span, with $1, $2 the previous span's bounds and $3, $4 the current's, and
 * `current` saying which.
 */
const PLACED = `select o.id, o.total_cents, o.tax_cents, o.shipping_cents, o.subtotal_cents, o.discount_cents,
         o.shipping_discount_cents,
         o.status in (${CANCELLED}) as cancelled,
         o.created_at >= $3::text::timestamptz as current,
         ((o.created_at at time zone $5::text)::date)::text as day
    from public.orders o
   where o.created_at >= $1::text::timestamptz and o.created_at < $4::text::timestamptz
     and (o.created_at < $2::text::timestamptz or o.created_at >= $3::text::timestamptz)`;

const spanBounds = (period: SalesPeriod) => [
  at(period.previous.start),
  at(period.previous.end),
  at(period.current.start),
  at(period.current.end),
];

interface DayRow {
  current: boolean;
  day: string;
  orders: number;
  revenue: unknown;
  tax: unknown;
  shipping: unknown;
  units: unknown;
  cancelled: number;
  refunds: number;
  refunded: unknown;
  gross: unknown;
  discount: unknown;
  shipping_discount: unknown;
}

/** Both spans' money, orders and units from the orders themselves, a row for each day with orders: one grouped query. */
async function placedDayRows(tx: Sql, bounds: string[], timeZone: string): Promise<DayRow[]> {
  return tx.query<DayRow>(
    `with placed as (${PLACED}),
     refunds as (
       select r.order_id, count(*)::int as n, sum(r.amount_cents)::bigint as cents
         from public.order_refunds r join placed p on p.id = r.order_id
        where ${refundCountsSql('r.status')}
        group by r.order_id),
     units as (
       select i.order_id, sum(i.quantity)::bigint as n
         from public.order_items i join placed p on p.id = i.order_id and not p.cancelled
        group by i.order_id)
     select p.current, p.day,
            (count(*) filter (where not p.cancelled))::int as orders,
            coalesce(sum(p.total_cents - coalesce(r.cents, 0)) filter (where not p.cancelled), 0)::bigint as revenue,
            coalesce(sum(p.tax_cents) filter (where not p.cancelled), 0)::bigint as tax,
            coalesce(sum(p.shipping_cents) filter (where not p.cancelled), 0)::bigint as shipping,
            coalesce(sum(u.n), 0)::bigint as units,
            (count(*) filter (where p.cancelled))::int as cancelled,
            coalesce(sum(r.n), 0)::int as refunds,
            coalesce(sum(r.cents), 0)::bigint as refunded,
            coalesce(sum(p.subtotal_cents) filter (where not p.cancelled), 0)::bigint as gross,
            coalesce(sum(p.discount_cents) filter (where not p.cancelled), 0)::bigint as discount,
            coalesce(sum(p.shipping_discount_cents) filter (where not p.cancelled), 0)::bigint as shipping_discount
       from placed p
       left join refunds r on r.order_id = p.id
       left join units u on u.order_id = p.id
      group by p.current, p.day`,
    [...bounds, timeZone],
  );
}

/** The first and the last of a span's days. */
function dayEnds(span: Pick<Span, 'days'>): { first: Day; last: Day } {
  const first = span.days[0];
  const last = span.days.at(-1);
  if (!first || !last) throw new Error('A span has at least one day.');
  return { first, last };
}

/**
 * Both spans' money, orders and units, a row for each day with orders. Whole days come from the day totals (a row a
 * day: a year is a few hundred rows, not thousands of orders); each span's last day, which ends at `now` or as far
 * into it, from its orders.
 */
async function dayRows(tx: Sql, period: SalesPeriod, timeZone: string, rolled: boolean): Promise<DayRow[]> {
  if (!rolled) return placedDayRows(tx, spanBounds(period), timeZone);
  const previous = dayEnds(period.previous);
  const current = dayEnds(period.current);
  const whole = await tx.query<DayRow>(
    // A day's totals may be in several slots (rows written by commits side by side): added up.
    `select d.day >= $3::date as current, d.day::text as day, sum(d.orders)::int as orders,
            sum(d.revenue_cents)::bigint as revenue, sum(d.tax_cents)::bigint as tax,
            sum(d.shipping_cents)::bigint as shipping, sum(d.units)::bigint as units, sum(d.cancelled)::int as cancelled,
            sum(d.refunds)::int as refunds, sum(d.refunded_cents)::bigint as refunded, sum(d.gross_cents)::bigint as gross,
            sum(d.discount_cents)::bigint as discount, sum(d.shipping_discount_cents)::bigint as shipping_discount
       from app_private.sales_days d
      where (d.day >= $1::date and d.day < $2::date) or (d.day >= $3::date and d.day < $4::date)
      group by d.day`,
    [previous.first, previous.last, current.first, current.last],
  );
  const lastDays = await placedDayRows(
    tx,
    [
      at(startOfDay(previous.last, timeZone)),
      at(period.previous.end),
      at(startOfDay(current.last, timeZone)),
      at(period.current.end),
    ],
    timeZone,
  );
  return [...whole, ...lastDays];
}

type PeopleRow = Record<'customers' | 'previous_customers' | 'new_customers' | 'previous_new', number>;

/**
 * Both spans' customers and new customers: each address of the spans once (whole days from who ordered on each day,
 * kept as orders are written; with `rolled`, else and for each span's last day from the orders), and how many
 * addresses' first order that was not cancelled (kept in app_private.sales_customers) falls in each span.
 */
async function peopleRow(tx: Sql, period: SalesPeriod, timeZone: string, rolled: boolean): Promise<PeopleRow | undefined> {
  const previous = dayEnds(period.previous);
  const current = dayEnds(period.current);
  // From the orders: the spans whole, or their last days only.
  const placed = rolled
    ? [startOfDay(previous.last, timeZone), period.previous.end, startOfDay(current.last, timeZone), period.current.end]
    : [period.previous.start, period.previous.end, period.current.start, period.current.end];
  const [row] = await tx.query<PeopleRow>(
    `with seen as (
       select c.email, c.day >= $7::date as current
         from app_private.sales_day_customers c
        where $9
          and ((c.day >= $5::date and c.day < $6::date) or (c.day >= $7::date and c.day < $8::date))
        group by c.day, c.email having sum(c.orders) > 0
       union all
       select lower(o.customer_email), o.created_at >= $3::text::timestamptz
         from public.orders o
        where o.created_at >= $1::text::timestamptz and o.created_at < $4::text::timestamptz
          and (o.created_at < $2::text::timestamptz or o.created_at >= $3::text::timestamptz)
          and o.status not in (${CANCELLED})),
     -- Grouped (a hash of the addresses), not count(distinct …), which sorts them.
     who as (select s.email, bool_or(s.current) as current, bool_or(not s.current) as previous from seen s group by 1)
     select (select count(*) from who where who.current)::int as customers,
            (select count(*) from who where who.previous)::int as previous_customers,
            (select count(*) from app_private.sales_customers c
              where c.first_at >= $10::timestamptz and c.first_at < $12::timestamptz)::int as new_customers,
            (select count(*) from app_private.sales_customers c
              where c.first_at >= $11::timestamptz and c.first_at < $13::timestamptz)::int as previous_new`,
    [
      ...placed.map(at),
      previous.first,
      previous.last,
      current.first,
      current.last,
      rolled,
      at(period.current.start),
      at(period.previous.start),
      at(period.current.end),
      at(period.previous.end),
    ],
  );
  return row;
}

type Figures = Pick<SalesOverview, 'current' | 'previous' | 'days' | 'previousDays'>;

/** The figures and days of both spans from their rows (a few hundred at most: one a day with orders). */
function toFigures(period: SalesPeriod, rows: DayRow[], people: PeopleRow | undefined): Figures {
  const figures = (current: boolean): SalesFigures => {
    const mine = rows.filter((r) => r.current === current);
    const sum = (pick: (r: DayRow) => unknown) => mine.reduce((total, r) => total + num(pick(r)), 0);
    const orders = sum((r) => r.orders);
    const revenueCents = sum((r) => r.revenue);
    const grossCents = sum((r) => r.gross);
    const discountCents = sum((r) => r.discount);
    return {
      orders,
      revenueCents,
      grossCents,
      discountCents,
      netSalesCents: grossCents - discountCents,
      shippingDiscountCents: sum((r) => r.shipping_discount),
      shippingCents: sum((r) => r.shipping),
      taxCents: sum((r) => r.tax),
      averageCents: orders === 0 ? 0 : Math.round(revenueCents / orders),
      units: sum((r) => r.units),
      refunds: sum((r) => r.refunds),
      refundedCents: sum((r) => r.refunded),
      cancelled: sum((r) => r.cancelled),
      customers: num(current ? people?.customers : people?.previous_customers),
      newCustomers: num(current ? people?.new_customers : people?.previous_new),
    };
  };
  const byDay = new Map(rows.map((r) => [`${r.current}|${r.day}`, r]));
  const series = (span: Span, current: boolean): SalesDay[] =>
    span.days.map((day) => {
      const row = byDay.get(`${current}|${day}`);
      return { day, orders: num(row?.orders), revenueCents: num(row?.revenue), units: num(row?.units) };
    });
  return {
    current: figures(true),
    previous: figures(false),
    days: series(period.current, true),
    previousDays: series(period.previous, false),
  };
}

/** How many refunds (counted) of the orders placed in each span were a return's. */
async function returnRefunds(tx: Sql, period: SalesPeriod): Promise<SalesOverview['returnRefunds']> {
  const rows = await tx.query<{ current: boolean; n: number }>(
    `select o.created_at >= $3::text::timestamptz as current, count(*)::int as n
       from public.order_returns x
       join public.order_refunds r on r.refund_id = x.refund_id
       join public.orders o on o.id = x.order_id
      where ${refundCountsSql('r.status')}
        and o.created_at >= $1::text::timestamptz and o.created_at < $4::text::timestamptz
        and (o.created_at < $2::text::timestamptz or o.created_at >= $3::text::timestamptz)
      group by 1`,
    spanBounds(period),
  );
  return { current: rows.find((r) => r.current)?.n ?? 0, previous: rows.find((r) => !r.current)?.n ?? 0 };
}

/** Both spans' figures and days, in one transaction. */
export async function salesFigures(tx: Sql, period: SalesPeriod, timeZone: string): Promise<Figures> {
  const rolled = await rolledUpIn(tx, timeZone);
  return toFigures(period, await dayRows(tx, period, timeZone, rolled), await peopleRow(tx, period, timeZone, rolled));
}

/**
 * The period's best sellers (orders not cancelled): by product, and by variant (colour and size, for the products that
 * have them), ordered by `by` and then by the other, each named as its latest piece sold in the span was. Items are
 * grouped both ways at once; with `rolled` (the day totals are in the span's time zone) the whole days come from the
 * totals per day and item, and only the span's last day from its orders' items.
 */
export async function topSellers(
  tx: Sql,
  span: Pick<Span, 'start' | 'end'> & Partial<Pick<Span, 'days'>>,
  by: TopOrder,
  limit = TOP_COUNT,
  rolled?: { timeZone: string },
): Promise<{ products: TopSeller[]; variants: TopSeller[] }> {
  // `by` is one of two words, never text from the request.
  const order = by === 'revenue' ? 'sales desc, units desc' : 'units desc, sales desc';
  const days = rolled && span.days ? dayEnds({ days: span.days }) : undefined;
  const itemsFrom = rolled && days ? startOfDay(days.last, rolled.timeZone) : span.start;
  const rows = await tx.query<{
    variant: boolean;
    product_id: number;
    name: string;
    color: string | null;
    size: string | null;
    units: unknown;
    sales: unknown;
  }>(
    `with lines as (
       select d.product_id, d.color, d.size, d.units, d.sales_cents as sales, d.last_item_id as item_id, d.name
         from app_private.sales_day_items d
        where d.day >= $1::date and d.day < $2::date
       union all
       select i.product_id, i.selected_color, i.selected_size, i.quantity::bigint, i.quantity::bigint * i.price_cents,
              i.id, i.product_name
         from public.orders o join public.order_items i on i.order_id = o.id
        where o.created_at >= $3::text::timestamptz and o.created_at < $4::text::timestamptz
          and o.status not in (${CANCELLED})),
     -- Each item as bought, with its latest piece: a few dozen rows, however many days or orders the span has.
     named as (
       select l.product_id, l.color, l.size, sum(l.units) as units, sum(l.sales) as sales, max(l.item_id) as item_id,
              (array_agg(l.name order by l.item_id desc nulls last))[1] as name
         from lines l group by 1, 2, 3)
     select variant, product_id, name, color, size, units, sales from (
       select g.*, row_number() over (partition by variant order by ${order}, product_id, color, size) as rank
         from (select grouping(n.color, n.size) = 0 as variant, n.product_id, n.color, n.size,
                      (array_agg(n.name order by n.item_id desc nulls last))[1] as name,
                      sum(n.units)::bigint as units, sum(n.sales)::bigint as sales
                 from named n
                group by grouping sets ((n.product_id), (n.product_id, n.color, n.size))
               having sum(n.units) > 0) g
        where not g.variant or g.color is not null or g.size is not null) ranked
      where rank <= $5
      order by variant, rank`,
    [days?.first ?? null, days?.last ?? null, at(itemsFrom), at(span.end), limit],
  );
  const seller = (r: (typeof rows)[number]): TopSeller => ({
    productId: num(r.product_id),
    name: r.name,
    variant: r.variant ? variantLabel(r.color, r.size) : null,
    units: num(r.units),
    salesCents: num(r.sales),
  });
  return { products: rows.filter((r) => !r.variant).map(seller), variants: rows.filter((r) => r.variant).map(seller) };
}

/**
 * The whole overview of `period` (both spans' figures and days, and the current span's best sellers). Its three queries
 * run side by side, each in a transaction of its own (on PostgreSQL, on three connections: the page waits for the
 * slowest, not for the sum; the embedded database takes them in turn).
 */
export async function salesOverview(
  run: AdminCaller['run'],
  period: SalesPeriod,
  timeZone: string,
  by: TopOrder = 'units',
): Promise<SalesOverview> {
  const [rows, people, top, returns] = await Promise.all([
    run(async (tx) => dayRows(tx, period, timeZone, await rolledUpIn(tx, timeZone))),
    run(async (tx) => peopleRow(tx, period, timeZone, await rolledUpIn(tx, timeZone))),
    run(async (tx) => topSellers(tx, period.current, by, TOP_COUNT, (await rolledUpIn(tx, timeZone)) ? { timeZone } : undefined)),
    run((tx) => returnRefunds(tx, period)),
  ]);
  return { period, ...toFigures(period, rows, people), ...top, returnRefunds: returns };
}

/** The admin overview's card: the last 7 days' figures and the 7 days before. */
export async function salesSummary(tx: Sql, now: Date, timeZone: string) {
  const period = salesPeriod('7d', now, timeZone);
  const { current, previous } = await salesFigures(tx, period, timeZone);
  return { current, previous, previousLabel: period.previousLabel };
}
