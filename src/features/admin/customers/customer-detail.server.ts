import { orderNumber, type StatusKey, statusOf } from '@/features/orders/orders';
import { refundedCentsSql } from '@/features/orders/refunds.server';
import { type ReturnKind, type ReturnStatus, returnNumber } from '@/features/returns/returns';
import type { Sql } from '@/server/db/database.server';
import { isoText } from '../paging.server';
import { ACCOUNTS_BY_EMAIL, accountName } from './customer-list.server';
import type { CustomerKey } from './customers';

// A customer's admin page: who they are, their orders and returns, the reviews they wrote and the messages they sent. Read as
// service_role through the admin's `run` (decision 010 says who a customer is).

/** How many of a customer's orders, returns, reviews and messages the page lists (the newest); the totals count them all. */
export const DETAIL_LIMIT = 50;

export interface CustomerOrder {
  id: string;
  number: string;
  createdAt: string;
  status: StatusKey;
  totalCents: number;
  refundedCents: number;
  /** Placed as a guest (later joined to the account by its e-mail). */
  guest: boolean;
}

export interface CustomerReview {
  id: string;
  productId: number;
  productName: string;
  rating: number;
  comment: string;
  state: 'approved' | 'rejected' | 'pending';
  createdAt: string;
}

export interface CustomerReturn {
  id: string;
  number: string;
  orderId: string;
  orderNumber: string;
  kind: ReturnKind;
  status: ReturnStatus;
  createdAt: string;
}

export interface CustomerMessage {
  id: number;
  email: string;
  message: string;
  read: boolean;
  createdAt: string;
}

export interface CustomerDetail {
  key: CustomerKey;
  who: Who;
  name: string;
  email: string;
  /** The account's: whether its e-mail is confirmed, when it signed up, when it subscribed (null: not subscribed). */
  account: { verified: boolean; createdAt: string; subscribedAt: string | null } | null;
  /** The e-mails they used (the account's and every order's, lower case): their messages are found by these. */
  emails: string[];
  orderCount: number;
  spentCents: number;
  lastOrderAt: string | null;
  orders: CustomerOrder[];
  reviews: CustomerReview[];
  returns: CustomerReturn[];
  messages: CustomerMessage[];
}

/** What a key leads to: the customer, the account a guest's e-mail now belongs to (`moved`), or nobody. */
export type CustomerLookup = { found: CustomerDetail } | { moved: CustomerKey } | null;

/** Whose orders (and notes) are a customer's. */
export interface Who {
  userId: string | null;
  /** The lower-case e-mail whose guest orders are theirs, or null (an account no guest order is joined to). */
  guestEmail: string | null;
}

interface AccountInfo {
  id: string;
  email: string;
  name: string;
  verified: boolean;
  createdAt: string;
}

/** A customer a key names: whose orders are theirs, and their account (null for a guest). */
export type ResolvedCustomer = { who: Who; account: AccountInfo | null };

/**
 * The account a guest e-mail belongs to (a verified account with it), or null: the customer of that e-mail's guest
 * orders is then that account's.
 */
export async function accountWithEmail(tx: Sql, email: string): Promise<string | null> {
  const [row] = await tx.query<{ id: string }>(`select id::text from ${ACCOUNTS_BY_EMAIL} m where m.email = $1`, [email]);
  return row?.id ?? null;
}

/** Who a key names, or null when nobody: an account that exists, or an e-mail with guest orders and no account. */
export async function resolveCustomer(tx: Sql, key: CustomerKey): Promise<ResolvedCustomer | { moved: CustomerKey } | null> {
  if (key.kind === 'guest') {
    const owner = await accountWithEmail(tx, key.email);
    if (owner) return { moved: { kind: 'account', userId: owner } };
    const [row] = await tx.query<{ n: number }>(
      `select count(*)::int as n from public.orders where user_id is null and lower(customer_email) = $1`,
      [key.email],
    );
    return row && row.n > 0 ? { who: { userId: null, guestEmail: key.email }, account: null } : null;
  }
  const [user] = await tx.query<{
    id: string;
    email: string;
    name: string;
    verified: boolean;
    created_at: string;
    joins: boolean;
  }>(
    `select u.id::text, coalesce(u.email, '') as email, ${accountName('u')} as name, u.email_confirmed_at is not null as verified,
            ${isoText('u.created_at')} as created_at,
            exists (select 1 from ${ACCOUNTS_BY_EMAIL} m where m.id = u.id) as joins
       from auth.users u where u.id = $1`,
    [key.userId],
  );
  if (!user) return null;
  return {
    who: { userId: user.id, guestEmail: user.joins ? user.email.toLowerCase() : null },
    account: { id: user.id, email: user.email, name: user.name, verified: user.verified, createdAt: user.created_at },
  };
}

/** SQL: the customer's orders, for `$1` the account (or null) and `$2` the guest e-mail joined to it (or null). */
const THEIRS = `(o.user_id = $1::uuid or ($2::text is not null and o.user_id is null and lower(o.customer_email) = $2::text))`;

/** A customer's page, the account their guest e-mail now belongs to, or null when the key names nobody. */
export async function customerDetail(tx: Sql, key: CustomerKey): Promise<CustomerLookup> {
  const resolved = await resolveCustomer(tx, key);
  if (!resolved || 'moved' in resolved) return resolved;
  const { who, account } = resolved;
  const params = [who.userId, who.guestEmail];

  const [totals] = await tx.query<{ n: number; spent: string | number; last: string | null; emails: string[] | null }>(
    `select count(*)::int as n, coalesce(sum(o.total_cents - ${refundedCentsSql('o.id')}), 0)::bigint as spent,
            case when max(o.created_at) is null then null else ${isoText('max(o.created_at)')} end as last,
            array_agg(distinct lower(o.customer_email)) filter (where o.id is not null) as emails
       from public.orders o where ${THEIRS}`,
    params,
  );
  const orders = await tx.query<{
    id: string;
    created_at: string;
    status: string;
    total_cents: number;
    refunded_cents: number;
    guest: boolean;
    customer_name: string;
    customer_email: string;
  }>(
    `select o.id::text, ${isoText('o.created_at')} as created_at, o.status, o.total_cents, ${refundedCentsSql('o.id')} as refunded_cents,
            o.user_id is null as guest, o.customer_name, o.customer_email
       from public.orders o where ${THEIRS}
      order by o.created_at desc, o.seq desc limit ${DETAIL_LIMIT}`,
    params,
  );
  const returns = await tx.query<{
    id: string;
    number: string;
    order_id: string;
    kind: ReturnKind;
    status: ReturnStatus;
    created_at: string;
  }>(
    `select r.id::text, r.number::text as number, r.order_id::text, r.kind, r.status, ${isoText('r.created_at')} as created_at
       from public.order_returns r join public.orders o on o.id = r.order_id
      where ${THEIRS}
      order by r.created_at desc, r.number desc limit ${DETAIL_LIMIT}`,
    params,
  );
  const reviews = who.userId
    ? await tx.query<{
        id: string;
        product_id: number;
        product_name: string;
        rating: number;
        comment: string;
        approved: boolean;
        rejected: boolean;
        created_at: string;
      }>(
        `select r.id::text, r.product_id, coalesce(p.name, 'Product ' || r.product_id) as product_name, r.rating::int as rating,
                r.comment, r.is_approved as approved, r.rejected_at is not null as rejected, ${isoText('r.created_at')} as created_at
           from public.product_reviews r left join public.products p on p.id = r.product_id
          where r.user_id = $1 order by r.created_at desc, r.seq desc limit ${DETAIL_LIMIT}`,
        [who.userId],
      )
    : [];
  const emails = [...new Set([...(account ? [account.email.toLowerCase()] : []), ...(totals?.emails ?? [])])].filter(Boolean);
  const messages = await tx.query<{ id: string | number; email: string; message: string; read: boolean; created_at: string }>(
    `select id, email, message, read_at is not null as read, ${isoText('created_at')} as created_at
       from public.contact_messages where lower(email) = any($1::text[]) order by id desc limit ${DETAIL_LIMIT}`,
    [emails],
  );
  const latest = orders[0];
  return {
    found: {
      key,
      who,
      name: account?.name || latest?.customer_name || '',
      email: account?.email || latest?.customer_email || '',
      account: account && {
        verified: account.verified,
        createdAt: account.createdAt,
        subscribedAt: await subscribedAt(tx, account.id),
      },
      emails,
      orderCount: totals?.n ?? 0,
      spentCents: Number(totals?.spent ?? 0),
      lastOrderAt: totals?.last ?? null,
      orders: orders.map((o) => ({
        id: o.id,
        number: orderNumber(o.id),
        createdAt: o.created_at,
        status: statusOf(o.status),
        totalCents: o.total_cents,
        refundedCents: o.refunded_cents,
        guest: o.guest,
      })),
      reviews: reviews.map((r) => ({
        id: r.id,
        productId: r.product_id,
        productName: r.product_name,
        rating: r.rating,
        comment: r.comment,
        state: r.approved ? 'approved' : r.rejected ? 'rejected' : 'pending',
        createdAt: r.created_at,
      })),
      returns: returns.map((r) => ({
        id: r.id,
        number: returnNumber(r.number),
        orderId: r.order_id,
        orderNumber: orderNumber(r.order_id),
        kind: r.kind,
        status: r.status,
        createdAt: r.created_at,
      })),
      messages: messages.map((m) => ({
        id: Number(m.id),
        email: m.email,
        message: m.message,
        read: m.read,
        createdAt: m.created_at,
      })),
    },
  };
}

async function subscribedAt(tx: Sql, userId: string): Promise<string | null> {
  const [row] = await tx.query<{ at: string }>(
    `select ${isoText('subscribed_at')} as at from public.newsletter_subscribers where user_id = $1`,
    [userId],
  );
  return row?.at ?? null;
}
