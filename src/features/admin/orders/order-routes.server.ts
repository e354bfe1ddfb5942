import { z } from 'astro/zod';
import { SETTABLE_STATUSES } from '@/features/admin/orders/order-admin';
import type { CatalogueIndex } from '@/features/catalogue/catalogue';
import { orderNumber, STATUS_LABELS, type StatusKey } from '@/features/orders/orders';
import type { CookieJar } from '@/server/auth/auth.port';
import type { CallerDeps } from '@/server/caller.server';
import { json, problem, readJson } from '@/server/http.server';
import type { PaymentsPort } from '@/server/payments/payments.port';
import { requireAdminOf } from '../admin.server';
import {
  cancelOrder,
  changeOrderStatus,
  type OrderActionResult,
  refundOrder,
  restockOrderAction,
  retryOrderJob,
} from './order-actions.server';
import { labelPdf } from './order-queries.server';
import { MAX_SLIPS, packingSlipsPdf, slipOrders } from './packing-slips.server';

// The admin's order endpoints under /api/admin/orders/{id}/…, written against their dependencies so the database
// suites call them as the routes do: a Request and the browser's cookies in, a Response out. Each starts by asking
// whether the caller is an admin; a guest or a shopper gets the same 404 as a path that does not exist, before the
// order id or the body is even read.

/** What the order endpoints need of the services (a subset, so tests can hand in their own). */
export interface AdminOrderDeps extends CallerDeps {
  adminEmails: readonly string[];
  payments: PaymentsPort;
  /** Runs the outbox now (after a transaction that queued or reset a job has committed). */
  nudgeOutbox: () => void;
  /** The shop's time zone (SHOP_TIME_ZONE): the day a packing slip says an order was placed. */
  timeZone: string;
  /** The catalogue a packing slip names items from (the SKU, the colour as the shop shows it). */
  catalogue: () => Promise<CatalogueIndex>;
}

const orderId = z.uuid();
const noSuchOrder = () => problem(404, 'not_found', 'No such order.');

function respond(result: OrderActionResult): Response {
  return result.ok ? json(result.answer) : problem(result.status, result.code, result.message);
}

const statusKey = z.enum(Object.keys(STATUS_LABELS) as [StatusKey, ...StatusKey[]], {
  error: 'from must be the status the order had: processing, shipped, delivered or cancelled.',
});

export const statusBody = z.object(
  {
    from: statusKey,
    to: z.string().refine((to) => (SETTABLE_STATUSES as readonly string[]).includes(to), {
      error:
        'An order can be marked shipped or delivered here; cancel it with POST /api/admin/orders/{id}/cancel, which refunds it.',
    }),
  },
  { error: 'Send {"from": <the status you saw>, "to": "shipped" | "delivered"}.' },
);

/** POST /api/admin/orders/{id}/status {from, to}: 200 {changed, status, refundedCents, message}; 400, 404, 409. */
export async function adminOrderStatus(deps: AdminOrderDeps, request: Request, jar: CookieJar, id: string | undefined) {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const order = orderId.safeParse(id);
  if (!order.success) return noSuchOrder();
  const body = await readJson(request, statusBody);
  if ('response' in body) return body.response;
  const result = await changeOrderStatus(me, order.data, {
    from: body.data.from,
    to: body.data.to as (typeof SETTABLE_STATUSES)[number],
  });
  if (result.ok && result.answer.changed) deps.nudgeOutbox();
  return respond(result);
}

/** Whether to put what the order took from the counts back in stock (the owner ticks it). */
const restockFlag = z.boolean({ error: 'restock must be true or false.' }).optional();

export const refundBody = z
  .object(
    {
      amountCents: z
        .number({ error: 'amountCents must be a whole number of cents.' })
        .int({ error: 'amountCents must be a whole number of cents.' })
        .positive({ error: 'A refund must be at least 1 cent.' })
        .max(100_000_000, { error: 'amountCents is larger than any order.' })
        .optional(),
      /** Units of some lines: what was paid for them (net of their discount share, with tax) is refunded. */
      lines: z
        .array(
          z.object({
            itemId: z
              .union([z.string().regex(/^\d{1,18}$/), z.number().int().positive()], { error: 'itemId is a line of the order.' })
              .transform(String),
            quantity: z.number({ error: 'quantity must be a whole number.' }).int().min(1).max(1000),
          }),
        )
        .min(1, { error: 'Name at least one line to refund.' })
        .max(100)
        .optional(),
      restock: restockFlag,
    },
    {
      error:
        'Send {} to refund all that is left, {"amountCents": <cents>}, or {"lines": [{"itemId", "quantity"}]}; add "restock": true to put the items back.',
    },
  )
  .refine((b) => b.amountCents === undefined || b.lines === undefined, {
    error: 'Send either amountCents or lines, not both.',
  })
  // Putting back stock is for the whole order (what it took from the counts), not for some of its lines.
  .refine((b) => !(b.lines && b.restock), { error: 'restock puts back the whole order: refund lines without it.' });

export const cancelBody = z.object(
  { restock: restockFlag },
  { error: 'Send {}, or {"restock": true} to put the items back in stock.' },
);

/**
 * POST /api/admin/orders/{id}/refund {amountCents?, lines?}: all that is left, that much, or what was paid for those
 * lines; 200, 400, 404, 409, 502.
 */
export async function adminOrderRefund(deps: AdminOrderDeps, request: Request, jar: CookieJar, id: string | undefined) {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const order = orderId.safeParse(id);
  if (!order.success) return noSuchOrder();
  const body = await readJson(request, refundBody);
  if ('response' in body) return body.response;
  return respond(
    await refundOrder(me, deps.payments, order.data, {
      amountCents: body.data.amountCents,
      lines: body.data.lines,
      restock: body.data.restock ?? false,
    }),
  );
}

/**
 * POST /api/admin/orders/{id}/cancel {restock?}: refunds what is left, then cancels an unshipped order (and puts its
 * items back in stock when asked); 200, 404, 409, 502.
 */
export async function adminOrderCancel(deps: AdminOrderDeps, request: Request, jar: CookieJar, id: string | undefined) {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const order = orderId.safeParse(id);
  if (!order.success) return noSuchOrder();
  const body = await readJson(request, cancelBody);
  if ('response' in body) return body.response;
  return respond(await cancelOrder(me, deps.payments, order.data, { restock: body.data.restock ?? false }));
}

/** POST /api/admin/orders/{id}/restock {}: puts what the order took from the counts back, once; 200, 404. */
export async function adminOrderRestock(deps: AdminOrderDeps, request: Request, jar: CookieJar, id: string | undefined) {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const order = orderId.safeParse(id);
  if (!order.success) return noSuchOrder();
  const body = await readJson(request, z.object({}));
  if ('response' in body) return body.response;
  return respond(await restockOrderAction(me, order.data));
}

export const retryBody = z.object(
  { jobId: z.string().regex(/^\d{1,18}$/, { error: 'jobId must be the id of one of the order’s jobs.' }) },
  { error: 'Send {"jobId": <the job’s id>}.' },
);

/** POST /api/admin/orders/{id}/retry {jobId}: 200 {changed, job, message}; 400, 404. */
export async function adminOrderRetry(deps: AdminOrderDeps, request: Request, jar: CookieJar, id: string | undefined) {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const order = orderId.safeParse(id);
  if (!order.success) return noSuchOrder();
  const body = await readJson(request, retryBody);
  if ('response' in body) return body.response;
  const result = await retryOrderJob(me, order.data, body.data.jobId);
  if (!result.ok) return problem(result.status, result.code, result.message);
  if (result.changed) deps.nudgeOutbox();
  return json({ changed: result.changed, job: result.job, message: result.message });
}

/** GET /api/admin/orders/{id}/label: the label PDF the shop stores for the order (to print or download again); 404. */
export async function adminOrderLabel(deps: AdminOrderDeps, jar: CookieJar, id: string | undefined) {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const order = orderId.safeParse(id);
  if (!order.success) return noSuchOrder();
  const pdf = await me.run((tx) => labelPdf(tx, order.data));
  if (!pdf) return problem(404, 'not_found', 'This order has no label PDF (yet).');
  return new Response(new Uint8Array(pdf), {
    headers: {
      'content-type': 'application/pdf',
      'content-disposition': `inline; filename="label-${order.data.slice(0, 8)}.pdf"`,
      'cache-control': 'private, no-store',
    },
  });
}

/** Whether a browser is navigating (a form sent), rather than a script asking for data. */
const wantsPage = (request: Request) => (request.headers.get('accept') ?? '').includes('text/html');

/** The packing slips' request: the ticked orders' ids, each a UUID, at least one and at most MAX_SLIPS. */
const slipIds = z
  .array(orderId, { error: 'Tick the orders to print packing slips for.' })
  .min(1, { error: 'Tick the orders to print packing slips for.' })
  .max(MAX_SLIPS, { error: `Print at most ${MAX_SLIPS} packing slips at a time.` });

/**
 * GET /api/admin/packing-slips?id=…&id=…: one PDF with a packing slip per order, in the order ticked. Admins only
 * (anyone else gets 404). An id that is no order's is named in a 404, so a slip is never silently left out.
 */
export async function adminPackingSlips(deps: AdminOrderDeps, jar: CookieJar, request: Request) {
  const url = new URL(request.url);
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const ids = slipIds.safeParse(url.searchParams.getAll('id'));
  // The order list's form sent with nothing ticked: back to the list, which says what to do.
  if (url.searchParams.getAll('id').length === 0 && wantsPage(request)) {
    return new Response(null, { status: 303, headers: { location: '/admin/orders?slips=none' } });
  }
  if (!ids.success) {
    const issue = ids.error.issues[0];
    const message = issue?.path.length ? 'Each id must be an order id.' : (issue?.message ?? 'Tick the orders to print.');
    return problem(400, 'invalid_request', message);
  }
  const catalogue = await deps.catalogue();
  const orders = await me.run((tx) => slipOrders(tx, ids.data, deps.timeZone, catalogue));
  const missing = ids.data.filter((id) => !orders.some((o) => o.id === id));
  if (missing.length > 0) return problem(404, 'not_found', `No such order: ${missing.join(', ')}.`);
  const pdf = await packingSlipsPdf(orders);
  const name = orders.length === 1 ? `packing-slip-${orderNumber(orders[0]?.id ?? '')}` : `packing-slips-${orders.length}`;
  return new Response(new Uint8Array(pdf), {
    headers: {
      'content-type': 'application/pdf',
      'content-disposition': `inline; filename="${name}.pdf"`,
      'cache-control': 'private, no-store',
    },
  });
}
