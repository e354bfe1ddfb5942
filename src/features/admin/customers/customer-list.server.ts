import { refundCountsSql } from '@/features/orders/refunds.server';
import type { Sql } from '@/server/db/database.server';
import { containsPattern } from '../orders/order-admin';
import { isoText, type Page, toPage } from '../paging.server';
import type { CustomerCursor, CustomerKey } from './customers';

// The admin's customers list: every account, and every guest e-mail no verified account has, with their orders, what
// they spent net of refunds, their last order and whether they read the newsletter (decision 010). Read as service_role
// through the admin's `run`. The list is computed from the orders on each page: no second copy of them to keep in step.

/**
 * SQL: the account a guest order's e-mail belongs to, per lower-case e-mail: a verified account only (anyone may sign
 * up with someone else's e-mail, but not confirm it), the earliest if there were ever two.
 */
export const ACCOUNTS_BY_EMAIL = `(select distinct on (lower(u.email)) u.id, lower(u.email) as email
    from auth.users u where u.email_confirmed_at is not null and u.email is not null
   order by lower(u.email), u.created_at, u.id)`;

/** SQL: the name an account signed up with ('' when none). */
export const accountName = (u: string) =>
  `btrim(concat_ws(' ', ${u}.raw_user_meta_data ->> 'first_name', ${u}.raw_user_meta_data ->> 'last_name'))`;

/** A customer as the list shows them. */
export interface CustomerRow {
  key: CustomerKey;
  /** The account's name, else the name on their latest order ('' when neither has one). */
  name: string;
  /** The account's e-mail, else the one on their latest order. */
  email: string;
  orders: number;
  /** What their orders came to, less what was refunded of them (pending or succeeded refunds), in cents. */
  spentCents: number;
  /** ISO time of their latest order, or null. */
  lastOrderAt: string | null;
  subscribed: boolean;
}

/**
 * A page of customers matching `q` (in their name or e-mail, or a name or e-mail on any of their orders; any case, `%`
 * and `_` taken literally), most recent first: by their last order, or their sign-up when they have not ordered.
 */
export async function listCustomers(
  tx: Sql,
  { q, limit, after }: { q: string; limit: number; after?: CustomerCursor | undefined },
): Promise<Page<CustomerRow, CustomerCursor>> {
  const rows = await tx.query<{
    key: string;
    user_id: string | null;
    guest_email: string | null;
    name: string;
    email: string;
    orders: number;
    spent_cents: string | number;
    last_order_at: string | null;
    at: string;
    subscribed: boolean;
  }>(
    `with refunded as (
       select r.order_id, sum(r.amount_cents)::bigint as cents from public.order_refunds r
        where ${refundCountsSql('r.status')} group by r.order_id
     ), placed as (
       select coalesce(o.user_id, m.id) as user_id,
              case when o.user_id is null and m.id is null then lower(o.customer_email) end as guest_email,
              o.created_at, o.seq, o.customer_name, o.customer_email, o.total_cents - coalesce(r.cents, 0) as net_cents
         from public.orders o
         left join ${ACCOUNTS_BY_EMAIL} m on o.user_id is null and m.email = lower(o.customer_email)
         left join refunded r on r.order_id = o.id
     ), bought as (
       select user_id, guest_email, count(*)::int as orders, sum(net_cents)::bigint as spent_cents,
              max(created_at) as last_order_at,
              (array_agg(customer_name order by created_at desc, seq desc))[1] as order_name,
              (array_agg(customer_email order by created_at desc, seq desc))[1] as order_email,
              coalesce(bool_or(customer_name ilike $1::text escape '\\' or customer_email ilike $1::text escape '\\'), false)
                as order_matches
         from placed group by user_id, guest_email
     ), customers as (
       select case when u.id is not null then 'a:' || u.id::text else 'g:' || b.guest_email end as key,
              u.id as user_id, b.guest_email,
              coalesce(nullif(${accountName('u')}, ''), b.order_name, '') as name,
              coalesce(u.email, b.order_email) as email,
              coalesce(b.orders, 0) as orders, coalesce(b.spent_cents, 0) as spent_cents, b.last_order_at,
              coalesce(b.last_order_at, u.created_at) as sort_at, coalesce(b.order_matches, false) as order_matches,
              exists (select 1 from public.newsletter_subscribers s where s.user_id = u.id) as subscribed
         from bought b full join auth.users u on u.id = b.user_id
     )
     select key, user_id::text as user_id, guest_email, name, email, orders, spent_cents,
            case when last_order_at is null then null else ${isoText('last_order_at')} end as last_order_at,
            ${isoText('sort_at')} as at, subscribed
       from customers
      where ($1::text is null or name ilike $1::text escape '\\' or email ilike $1::text escape '\\' or order_matches)
        and ($2::text is null or sort_at < $2::text::timestamptz or (sort_at = $2::text::timestamptz and key > $3::text))
      order by sort_at desc, key
      limit $4`,
    [q ? containsPattern(q) : null, after?.at ?? null, after?.key ?? null, limit + 1],
  );
  const customers = rows.map((r) => ({
    key: r.user_id ? { kind: 'account' as const, userId: r.user_id } : { kind: 'guest' as const, email: r.guest_email ?? '' },
    listKey: r.key,
    at: r.at,
    name: r.name,
    email: r.email,
    orders: r.orders,
    // A sum is a bigint, which postgres.js reads as text.
    spentCents: Number(r.spent_cents),
    lastOrderAt: r.last_order_at,
    subscribed: r.subscribed,
  }));
  const page = toPage(customers, limit, (c) => ({ at: c.at, key: c.listKey }));
  return { rows: page.rows.map(({ listKey: _, at: __, ...row }) => row), next: page.next };
}
