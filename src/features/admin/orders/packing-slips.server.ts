import { PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from 'pdf-lib';
import type { CatalogueIndex } from '@/features/catalogue/catalogue';
import { shippingService, shipTo } from '@/features/orders/order-page.server';
import { orderNumber, type ShipTo, shipToLines, variantLabel } from '@/features/orders/orders';
import { CONTACT } from '@/lib/contact';
import { jsonColumn, type Sql } from '@/server/db/database.server';
import { fitted } from '@/server/pdf.server';

// Packing slips: what goes in the box with an order, printed from the admin (one order's page, or the orders ticked in
// the list). A US Letter page per order: the order's number and day, where it ships, every item with its SKU, its
// colour as the shop shows it ('Powder Blue', never the key 'powder-blue'), size and quantity (no prices: a slip
// travels with gifts too), and a thank-you note.

/** The most orders one PDF holds: four pages of the order list. */
export const MAX_SLIPS = 100;

/** An order as its packing slip shows it. */
export interface SlipOrder {
  id: string;
  placedOn: string;
  address: ShipTo;
  service: string;
  items: { name: string; sku: string | null; variant: string | null; quantity: number }[];
}

/** The orders among `ids` that exist, in the order asked for (each once), their items named from `catalogue`. */
export async function slipOrders(
  tx: Sql,
  ids: readonly string[],
  timeZone: string,
  catalogue: CatalogueIndex,
): Promise<SlipOrder[]> {
  const rows = await tx.query<{
    id: string;
    placed_on: string;
    shipping_address: string | Record<string, string>;
    shipping_method: string | Record<string, unknown>;
    items: string | { productId: number; name: string; color: string | null; size: string | null; quantity: number }[];
  }>(
    `select o.id::text, to_char(o.created_at at time zone $2::text, 'Mon FMDD, YYYY') as placed_on,
            o.shipping_address, o.shipping_method,
            coalesce((select json_agg(json_build_object('productId', i.product_id, 'name', i.product_name, 'color', i.selected_color,
                        'size', i.selected_size, 'quantity', i.quantity) order by i.id)
                      from public.order_items i where i.order_id = o.id), '[]'::json) as items
       from public.orders o where o.id = any($1::uuid[])`,
    [ids, timeZone],
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  return [...new Set(ids)].flatMap((id) => {
    const row = byId.get(id);
    if (!row) return [];
    return [
      {
        id,
        placedOn: row.placed_on,
        address: shipTo(row.shipping_address),
        service: shippingService(row.shipping_method),
        items: jsonColumn(row.items).map((i) => {
          // A product since taken out of the catalogue keeps the name and colour key the order recorded.
          const product = catalogue.get(i.productId);
          return {
            name: i.name,
            sku: product?.sku ?? null,
            variant: variantLabel(i.color && (product?.colorNames[i.color] ?? i.color), i.size),
            quantity: i.quantity,
          };
        }),
      },
    ];
  });
}

const PAGE = { width: 612, height: 792 } as const;
const MARGIN = 54;
const INK = rgb(0.13, 0.11, 0.1);
const MUTED = rgb(0.38, 0.35, 0.33);
const LINE = rgb(0.8, 0.78, 0.76);

interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
}

function write(page: PDFPage, font: PDFFont, raw: string, at: { x: number; y: number; size: number; width?: number }) {
  const { text, size } = fitted(font, raw, at.size, at.width ?? PAGE.width - MARGIN - at.x);
  page.drawText(text, { x: at.x, y: at.y, size, font, color: INK });
}

/** A small grey line at the left margin. */
function note(page: PDFPage, font: PDFFont, raw: string, y: number, width = PAGE.width - 2 * MARGIN) {
  const { text, size } = fitted(font, raw, 10, width);
  page.drawText(text, { x: MARGIN, y, size, font, color: MUTED });
}

function slipPage(pdf: PDFDocument, fonts: Fonts, order: SlipOrder) {
  let page = pdf.addPage([PAGE.width, PAGE.height]);
  let y = PAGE.height - MARGIN;
  write(page, fonts.bold, 'Aurelia', { x: MARGIN, y: y - 6, size: 22 });
  write(page, fonts.bold, 'PACKING SLIP', { x: PAGE.width - MARGIN - 120, y: y - 4, size: 12, width: 120 });
  y -= 40;
  write(page, fonts.bold, `Order ${orderNumber(order.id)}`, { x: MARGIN, y, size: 16 });
  note(page, fonts.regular, `Placed ${order.placedOn} · ${order.service}`, y - 18);
  y -= 52;

  write(page, fonts.bold, 'SHIP TO', { x: MARGIN, y, size: 9 });
  y -= 16;
  for (const line of shipToLines(order.address)) {
    write(page, fonts.regular, line, { x: MARGIN, y, size: 12 });
    y -= 16;
  }
  y -= 16;

  const qtyX = PAGE.width - MARGIN - 40;
  const skuX = qtyX - 150;
  const table = (top: number) => {
    write(page, fonts.bold, 'ITEM', { x: MARGIN, y: top, size: 9 });
    write(page, fonts.bold, 'SKU', { x: skuX, y: top, size: 9, width: 138 });
    write(page, fonts.bold, 'QTY', { x: qtyX, y: top, size: 9, width: 40 });
    page.drawLine({ start: { x: MARGIN, y: top - 6 }, end: { x: PAGE.width - MARGIN, y: top - 6 }, thickness: 1, color: LINE });
    return top - 24;
  };
  y = table(y);
  for (const item of order.items) {
    // A long order goes on to another page, its heading repeated.
    if (y < MARGIN + 90) {
      page = pdf.addPage([PAGE.width, PAGE.height]);
      y = PAGE.height - MARGIN;
      write(page, fonts.bold, `Order ${orderNumber(order.id)} (continued)`, { x: MARGIN, y, size: 12 });
      y = table(y - 30);
    }
    write(page, fonts.regular, item.name, { x: MARGIN, y, size: 12, width: skuX - MARGIN - 12 });
    if (item.variant) note(page, fonts.regular, item.variant, y - 14, skuX - MARGIN - 12);
    if (item.sku) write(page, fonts.regular, `SKU ${item.sku}`, { x: skuX, y, size: 10, width: 138 });
    write(page, fonts.bold, String(item.quantity), { x: qtyX, y, size: 12, width: 40 });
    y -= item.variant ? 34 : 22;
  }

  y = Math.max(y - 12, MARGIN + 40);
  page.drawLine({ start: { x: MARGIN, y: y + 14 }, end: { x: PAGE.width - MARGIN, y: y + 14 }, thickness: 1, color: LINE });
  write(page, fonts.bold, `Thank you, ${order.address.name}.`, { x: MARGIN, y, size: 12 });
  note(page, fonts.regular, `Questions about your order? Write to ${CONTACT.email} or call ${CONTACT.phone}.`, y - 16);
}

/** One PDF with a packing slip for each order, in the order given. */
export async function packingSlipsPdf(orders: readonly SlipOrder[]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.setTitle(orders.length === 1 ? `Packing slip ${orderNumber(orders[0]?.id ?? '')}` : `Packing slips (${orders.length})`);
  pdf.setCreator('Aurelia shop admin');
  const fonts = { regular: await pdf.embedFont(StandardFonts.Helvetica), bold: await pdf.embedFont(StandardFonts.HelveticaBold) };
  for (const order of orders) slipPage(pdf, fonts, order);
  return pdf.save();
}
