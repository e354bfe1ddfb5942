import type { Sql } from '@/server/db/database.server';

// The shopper's own newsletter subscription. Every query runs as the shopper: row-level security shows and changes
// only their row, and refuses an e-mail other than the account's (the policy compares it with the JWT's).

/** Whether the signed-in shopper is subscribed. */
export async function isSubscribed(tx: Sql): Promise<boolean> {
  const rows = await tx.query('select 1 from public.newsletter_subscribers where user_id = (select auth.uid())');
  return rows.length > 0;
}

/**
 * Subscribes the signed-in shopper with their account's e-mail (the endpoint has checked that the one they typed is
 * it). 'already' when they were subscribed: the primary key keeps one row per shopper, also when two requests race.
 */
export async function subscribe(tx: Sql): Promise<'subscribed' | 'already'> {
  const rows = await tx.query(
    `insert into public.newsletter_subscribers (user_id, email) values ((select auth.uid()), (select auth.jwt()) ->> 'email')
     on conflict (user_id) do nothing returning user_id`,
  );
  return rows.length > 0 ? 'subscribed' : 'already';
}

/** Ends the signed-in shopper's subscription; false when there was none. */
export async function unsubscribe(tx: Sql): Promise<boolean> {
  const rows = await tx.query('delete from public.newsletter_subscribers where user_id = (select auth.uid()) returning user_id');
  return rows.length > 0;
}
