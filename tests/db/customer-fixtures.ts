import { randomUUID } from 'node:crypto';
import type { Database } from '@/server/db/database.server';

// Customers for the admin's customer suites, written as the superuser (as the accounts port and the checkout would
// write them), so that a test states exactly the accounts, orders, refunds and times it is about.

/** An account: verified unless told, with the name it signed up with; its id. */
export async function account(
  db: Database,
  email: string,
  {
    first = '',
    last = '',
    verified = true,
    createdAt,
  }: { first?: string; last?: string; verified?: boolean; createdAt?: string } = {},
): Promise<string> {
  const id = randomUUID();
  await db.query(
    `insert into auth.users (id, email, email_confirmed_at, raw_user_meta_data, created_at)
     values ($1, $2, case when $3::boolean then now() end, jsonb_build_object('first_name', $4::text, 'last_name', $5::text),
             coalesce($6::text::timestamptz, now()))`,
    [id, email, verified, first, last, createdAt ?? null],
  );
  return id;
}

/** A paid order of `totalCents` (a guest's when `userId` is null), placed at `createdAt` (default now); its id. */
export async function order(
  db: Database,
  {
    userId = null,
    email,
    name,
    totalCents,
    createdAt,
  }: { userId?: string | null; email: string; name: string; totalCents: number; createdAt?: string },
): Promise<string> {
  const id = randomUUID();
  await db.query(
    `insert into public.orders (id, user_id, customer_email, customer_name, subtotal_cents, shipping_cents, tax_cents,
                                total_cents, payment_intent_id, shipping_address, shipping_method, created_at)
     values ($1, $2, $3, $4, $5, 0, 0, $5, $6, $7::text::jsonb, '{"service":"Ground"}'::jsonb,
             coalesce($8::text::timestamptz, now()))`,
    [
      id,
      userId,
      email,
      name,
      totalCents,
      `pi_test_${id.replaceAll('-', '')}`,
      JSON.stringify({ name, email, street1: '12 Bull St', city: 'Savannah', state: 'GA', zip: '31401' }),
      createdAt ?? null,
    ],
  );
  return id;
}

/** A refund of an order, in the state the processor reported. */
export async function refund(db: Database, orderId: string, amountCents: number, status: string): Promise<void> {
  await db.query(`insert into public.order_refunds (refund_id, order_id, amount_cents, status) values ($1, $2, $3, $4)`, [
    `re_${randomUUID().replaceAll('-', '')}`,
    orderId,
    amountCents,
    status,
  ]);
}

/** A unique word for a test's names and e-mails, so that a search finds that test's customers only. */
export const tag = (word: string) => `${word}${randomUUID().slice(0, 6)}`;
