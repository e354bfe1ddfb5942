import type { APIRoute } from 'astro';
import { z } from 'astro/zod';
import { requireShopper } from '@/app/shopper.server';
import { serviceStatement } from '@/server/db/roles.server';
import { problem } from '@/server/http.server';

export const prerender = false;

const orderId = z.uuid();

/**
 * The shipping label the embedded adapter drew for an order, as a PDF, for the order's owner. Whether the order is
 * theirs is decided by row-level security (the query runs as the shopper); only then is the PDF read.
 */
export const GET: APIRoute = async (context) => {
  const id = orderId.safeParse(context.params.id);
  if (!id.success) return problem(404, 'not_found', 'No such order.');
  const me = await requireShopper(context, 'Please log in to see your orders.');
  if (me instanceof Response) return me;
  const [mine] = await me.run((tx) => tx.query<{ id: string }>(`select id from public.orders where id = $1`, [id.data]));
  if (!mine) return problem(404, 'not_found', 'No such order.');
  const [label] = await serviceStatement<{ pdf: Uint8Array }>(
    me.services.db,
    `select pdf from public.order_labels where order_id = $1`,
    [id.data],
  );
  if (!label) return problem(404, 'not_found', 'This order has no label yet.');
  return new Response(new Uint8Array(label.pdf), {
    headers: {
      'content-type': 'application/pdf',
      'content-disposition': `inline; filename="label-${id.data.slice(0, 8)}.pdf"`,
      'cache-control': 'private, no-store',
    },
  });
};
