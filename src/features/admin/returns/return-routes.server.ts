// The admin's return endpoints under /api/admin/returns/{id}/…, written against their dependencies so the database
// suites call them as the routes do. Each starts by asking whether the caller is an admin: a guest or a shopper gets
// the same 404 as a path that does not exist, before the id or the body is read.
import { z } from 'astro/zod';
import { MAX_RETURN_TEXT } from '@/features/returns/returns';
import type { CookieJar } from '@/server/auth/auth.port';
import { json, problem, readJson } from '@/server/http.server';
import { requireAdminOf } from '../admin.server';
import type { AdminOrderDeps } from '../orders/order-routes.server';
import { approveReturn, declineReturn, receiveReturn } from './return-actions.server';
import { exchangeReturn } from './return-exchange.server';
import { refundReturn } from './return-refund.server';
import type { ReturnActionResult } from './return-rows.server';

const returnId = z.uuid();
const noSuchReturn = () => problem(404, 'not_found', 'No such return.');

function respond(result: ReturnActionResult): Response {
  return result.ok ? json(result.answer) : problem(result.status, result.code, result.message);
}

export const declineBody = z.object(
  {
    reason: z
      .string({ error: 'Say why the return is declined: the customer is e-mailed it.' })
      .trim()
      .min(1, { error: 'Say why the return is declined: the customer is e-mailed it.' })
      .max(MAX_RETURN_TEXT, { error: `Keep the reason to ${MAX_RETURN_TEXT} characters.` }),
  },
  { error: 'Send {"reason": "…"}.' },
);

export const receiveBody = z.object(
  {
    items: z
      .array(
        z.object({
          itemId: z.string().regex(/^\d{1,18}$/, { error: 'itemId is a line of the return.' }),
          condition: z.enum(['resellable', 'damaged'], { error: 'condition is resellable or damaged.' }),
        }),
      )
      .min(1, { error: 'Mark at least one line received.' })
      .max(100)
      .refine((items) => new Set(items.map((i) => i.itemId)).size === items.length, {
        error: 'A line is listed twice.',
      }),
  },
  { error: 'Send {"items": [{"itemId", "condition": "resellable" | "damaged"}]}.' },
);

export const refundBody = z.object(
  { shipping: z.boolean({ error: 'shipping must be true or false.' }).optional() },
  { error: 'Send {}, or {"shipping": true} to give back the order’s shipping too.' },
);

type Action = 'approve' | 'decline' | 'receive' | 'refund' | 'exchange';

/**
 * POST /api/admin/returns/{id}/{approve|decline|receive|refund|exchange}: 200 {changed, status, message}; 400, 404,
 * 409, 502.
 */
export async function adminReturnAction(
  deps: AdminOrderDeps,
  action: Action,
  request: Request,
  jar: CookieJar,
  id: string | undefined,
): Promise<Response> {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const ret = returnId.safeParse(id);
  if (!ret.success) return noSuchReturn();
  let result: ReturnActionResult;
  if (action === 'decline') {
    const body = await readJson(request, declineBody);
    if ('response' in body) return body.response;
    result = await declineReturn(me, ret.data, body.data.reason);
  } else if (action === 'receive') {
    const body = await readJson(request, receiveBody);
    if ('response' in body) return body.response;
    result = await receiveReturn(me, ret.data, body.data.items);
  } else if (action === 'refund') {
    const body = await readJson(request, refundBody);
    if ('response' in body) return body.response;
    result = await refundReturn(me, deps.payments, ret.data, { shipping: body.data.shipping ?? false });
  } else {
    const body = await readJson(request, z.object({}));
    if ('response' in body) return body.response;
    result =
      action === 'exchange'
        ? await exchangeReturn(me, deps.db, await deps.catalogue(), ret.data)
        : await approveReturn(me, ret.data);
  }
  if (result.ok && result.answer.changed) deps.nudgeOutbox();
  return respond(result);
}

/** GET /api/admin/returns/{id}/label: the return label PDF the shop drew; 404 before there is one. */
export async function adminReturnLabel(deps: AdminOrderDeps, jar: CookieJar, id: string | undefined): Promise<Response> {
  const me = await requireAdminOf(deps, jar);
  if (me instanceof Response) return me;
  const ret = returnId.safeParse(id);
  if (!ret.success) return noSuchReturn();
  const [label] = await me.run((tx) =>
    tx.query<{ pdf: Uint8Array }>('select pdf from public.return_labels where return_id = $1', [ret.data]),
  );
  if (!label) return problem(404, 'not_found', 'This return has no label PDF (yet).');
  return new Response(new Uint8Array(label.pdf), {
    headers: {
      'content-type': 'application/pdf',
      'content-disposition': `inline; filename="return-label-${ret.data.slice(0, 8)}.pdf"`,
      'cache-control': 'private, no-store',
    },
  });
}
