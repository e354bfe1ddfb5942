import { z } from 'astro/zod';
import { shipTo } from '@/features/orders/order-page.server';
import { orderNumber, type ShipTo, statusOf } from '@/features/orders/orders';
import type { CookieJar } from '@/server/auth/auth.port';
import { jsonColumn } from '@/server/db/database.server';
import { json, problem, readJson } from '@/server/http.server';
import { queueJob } from '@/server/outbox/jobs.server';
import { type Address, addressSchema } from '@/server/shipping/shipping.port';
import { type AdminCaller, recordAction, requireAdminOf } from '../admin.server';
import { customerToken, target } from './order-actions.server';
import {
  ADDRESS_FIELDS,
  type AddressField,
  addressChangeProblem,
  addressErrorCode,
  type OrderOpsAnswer,
  RESEND_KEY,
  resendMailKey,
  resendProblem,
  sameShipTo,
  shipToLine,
  stateChangeProblem,
} from './order-ops';
import type { AdminOrderDeps } from './order-routes.server';

// What an admin changes about an order after the sale besides its status and money (issue 43, part 4): its
// confirmation e-mail sent again, and where it ships until its label is bought. As every admin action, each runs as
// service_role through the admin's `run` and records its admin_actions row in the transaction that makes the change,
// only when something changed, so a double click records one action.

export type OrderOpsResult =
  | { ok: true; answer: OrderOpsAnswer }
  | { ok: false; status: 400 | 404 | 409; code: string; message: string; field?: AddressField };

const NO_SUCH_ORDER = { ok: false, status: 404, code: 'not_found', message: 'No such order.' } as const;

/**
 * Queues the order's confirmation e-mail to the customer again, with the order as it is now (its address, its
 * tracking) and the link of the first one. `key` is the page's idempotency key for this resend: a double click, a
 * retried request or a second server finds it queued (the outbox's unique key) and changes nothing.
 */
export async function resendConfirmation(me: AdminCaller, orderId: string, key: string): Promise<OrderOpsResult> {
  return me.run(async (tx) => {
    const [order] = await tx.query<{ status: string; customer_email: string }>(
      `select status, customer_email from public.orders where id = $1`,
      [orderId],
    );
    if (!order) return NO_SUCH_ORDER;
    const number = orderNumber(orderId);
    const refused = resendProblem({ number, status: statusOf(order.status) });
    if (refused) return { ok: false, status: 409, code: 'order_cancelled', message: refused };
    const payload = { orderId, audience: 'customer' as const, ...(await customerToken(tx, orderId)) };
    const queued = await queueJob(tx, 'order-email', payload, resendMailKey(orderId, key));
    if (queued) {
      await recordAction(tx, me.admin, {
        action: 'order.resend-confirmation',
        target: target(orderId),
        after: { to: order.customer_email },
      });
    }
    return {
      ok: true,
      answer: {
        changed: queued,
        message: queued
          ? `The confirmation of ${number} is on its way to ${order.customer_email}.`
          : `This resend was already queued: ${order.customer_email} gets it once.`,
      },
    };
  });
}

interface OrderForAddress {
  status: string;
  shipping_address: string | Record<string, string | undefined>;
  tracking_number: string | null;
}

/**
 * Changes where an order ships, while it is processing and has no label, to an address in the same state (checked as
 * the checkout checks it: `addressSchema`). Race-safe with the label's purchase: the label job's outbox row is locked
 * first, and the worker and POST /api/create-shipment both take the job's lease by updating that row, so either the
 * purchase has started (the lease is held: refused) or it starts after this commits, and reads the new address. The
 * label job also stores a label only for the address it was bought for (fulfilment.server.ts). A label job that failed
 * (a carrier refusing the old address, say) is made due at once, for the new address.
 */
export async function changeShippingAddress(me: AdminCaller, orderId: string, input: Address): Promise<OrderOpsResult> {
  return me.run(async (tx) => {
    const labelKey = `label:${orderId}`;
    const [job] = await tx.query<{ leased: boolean; done: boolean }>(
      `select coalesce(locked_until > now(), false) as leased, done_at is not null as done
         from public.outbox where dedupe_key = $1 for update`,
      [labelKey],
    );
    const [order] = await tx.query<OrderForAddress>(
      `select status, shipping_address, tracking_number from public.orders where id = $1 for update`,
      [orderId],
    );
    if (!order) return NO_SUCH_ORDER;
    const number = orderNumber(orderId);
    const status = statusOf(order.status);
    const hasLabel = order.tracking_number !== null || Boolean(job?.done);
    const refused = addressChangeProblem({ number, status, hasLabel });
    if (refused) return { ok: false, status: 409, code: hasLabel ? 'label_bought' : 'order_not_processing', message: refused };
    if (job?.leased) {
      return {
        ok: false,
        status: 409,
        code: 'label_in_progress',
        message: `The label of ${number} is being bought right now, for the address it has. Reload the page in a minute: should the purchase fail, the address can still change.`,
      };
    }
    const before = shipTo(order.shipping_address);
    const state = stateChangeProblem(before.state, input.state);
    if (state) return { ok: false, status: 400, code: addressErrorCode('state'), message: state, field: 'state' };
    const after: ShipTo = {
      name: input.name,
      street1: input.street1,
      street2: input.street2 ?? '',
      city: input.city,
      state: input.state,
      zip: input.zip,
    };
    if (sameShipTo(before, after)) return { ok: true, answer: { changed: false, message: 'That is the address it has.' } };
    // The e-mail and phone the checkout stored stay; the spec's own field names (address, zipCode) follow the change.
    const { street2: _, ...kept } = jsonColumn<Record<string, string | undefined>>(order.shipping_address);
    const stored = {
      ...kept,
      ...after,
      street2: input.street2,
      ...(input.phone ? { phone: input.phone } : {}),
      address: after.street1,
      zipCode: after.zip,
    };
    await tx.query(`update public.orders set shipping_address = $2::text::jsonb where id = $1`, [
      orderId,
      JSON.stringify(stored),
    ]);
    const [retried] = await tx.query(
      `update public.outbox set attempts = 0, next_attempt_at = now(), last_error = null
        where dedupe_key = $1 and done_at is null and last_error is not null returning id`,
      [labelKey],
    );
    await recordAction(tx, me.admin, {
      action: 'order.address',
      target: target(orderId),
      before: { address: shipToLine(before) },
      after: { address: shipToLine(after) },
    });
    return {
      ok: true,
      answer: {
        changed: true,
        message: `${number} now ships to ${shipToLine(after)}.${retried ? ' Its label is being bought again, for this address.' : ''}`,
      },
    };
  });
}

// The endpoints ----------------------------------------------------------------------------------------------------

const orderId = z.uuid();
const noSuchOrder = () => problem(404, 'not_found', 'No such order.');

function respond(result: OrderOpsResult): Response {
  if (result.ok) return json(result.answer);
  const { status, code, message, field } = result;
  return json({ error: { code, message, ...(field ? { field } : {}) } }, status);
}

export const resendBody = z.object(
  { key: z.string().regex(RESEND_KEY, { error: 'key must be the page’s key for this resend (16 to 64 letters or digits).' }) },
  { error: 'Send {"key": <a new key for each resend>}.' },
);

/** POST /api/admin/orders/{id}/resend-confirmation {key}: 200 {changed, message}; 400, 404, 409. */
export async function adminOrderResend(deps: AdminOrderDeps, request: Request, jar: CookieJar, id: string | undefined) {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const order = orderId.safeParse(id);
  if (!order.success) return noSuchOrder();
  const body = await readJson(request, resendBody);
  if ('response' in body) return body.response;
  const result = await resendConfirmation(me, order.data, body.data.key);
  if (result.ok && result.answer.changed) deps.nudgeOutbox();
  return respond(result);
}

/** The address as sent: any object; its fields are checked by `addressSchema`, as the checkout's are. */
export const addressBody = z.record(z.string(), z.unknown(), {
  error: 'Send {"name", "street1", "street2", "city", "state", "zip"}.',
});

/** The new address checked as the checkout checks one, or the 400 naming the first field that is wrong. */
export function parseAddress(body: Record<string, unknown>): { address: Address } | { refused: OrderOpsResult } {
  // The order's e-mail is its customer's: an address change does not touch it.
  const { email: _, ...fields } = body;
  const parsed = addressSchema.safeParse({ country: 'US', ...fields });
  if (parsed.success) return { address: parsed.data };
  const issue = parsed.error.issues[0];
  const named = issue?.path[0];
  const field = (ADDRESS_FIELDS as readonly unknown[]).includes(named) ? (named as AddressField) : undefined;
  return {
    refused: {
      ok: false,
      status: 400,
      code: field ? addressErrorCode(field) : 'invalid_address',
      message: issue?.message ?? 'The address is not valid.',
      ...(field ? { field } : {}),
    },
  };
}

/**
 * POST /api/admin/orders/{id}/address {name, street1, street2?, city, state, zip}: 200 {changed, message}; 400 naming
 * the field (nothing changed); 404; 409 once the order has its label, or is no longer processing.
 */
export async function adminOrderAddress(deps: AdminOrderDeps, request: Request, jar: CookieJar, id: string | undefined) {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const order = orderId.safeParse(id);
  if (!order.success) return noSuchOrder();
  const body = await readJson(request, addressBody);
  if ('response' in body) return body.response;
  const parsed = parseAddress(body.data);
  if ('refused' in parsed) return respond(parsed.refused);
  const result = await changeShippingAddress(me, order.data, parsed.address);
  if (result.ok && result.answer.changed) deps.nudgeOutbox();
  return respond(result);
}
