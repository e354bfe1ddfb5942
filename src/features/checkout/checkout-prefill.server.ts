import { isUsStateCode } from '@/lib/us-states';
import type { AccountUser } from '@/server/auth/auth.port';
import type { Sql } from '@/server/db/database.server';
import { shipTo } from '../orders/order-page.server';
import type { CheckoutPrefill } from './checkout';

/**
 * What the address stage starts from for a signed-in shopper: their name and e-mail from the account, and where their
 * last order shipped. Run as the shopper: row-level security shows only their own orders.
 */
export async function checkoutPrefill(tx: Sql, user: AccountUser): Promise<CheckoutPrefill> {
  const [last] = await tx.query<{ customer_name: string; shipping_address: string | Record<string, string> }>(
    `select customer_name, shipping_address from public.orders
     where user_id = (select auth.uid())
     order by created_at desc, seq desc limit 1`,
  );
  const to = last ? shipTo(last.shipping_address) : null;
  const accountName = [user.firstName, user.lastName].filter(Boolean).join(' ').trim();
  return {
    name: accountName || to?.name || last?.customer_name || '',
    email: user.email,
    // An address the form cannot take back as it is (a state it does not list) is not offered.
    lastAddress:
      to?.street1 && isUsStateCode(to.state)
        ? { name: to.name, address: to.street1, address2: to.street2, city: to.city, state: to.state, zipCode: to.zip }
        : null,
  };
}
