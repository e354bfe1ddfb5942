import { createHash } from 'node:crypto';
import bwipjs from 'bwip-js/node';
import { degrees, PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from 'pdf-lib';
import { fitted } from '../pdf.server';
import type { Address, Parcel } from './shipping.port';

// The embedded adapter's label: a 4×6 in thermal-label-sized PDF that looks like a carrier label (so the whole order
// flow, printing included, can be tried without a carrier account) but says TEST LABEL in three places so it is never
// mistaken for postage.

/** 4 × 6 in at 72 pt per inch: the size thermal label printers and Shippo's PDF_4x6 use. */
export const LABEL_SIZE = { width: 288, height: 432 } as const;

const MARGIN = 14;
const INNER_WIDTH = LABEL_SIZE.width - 2 * MARGIN;
const BLACK = rgb(0, 0, 0);
const WHITE = rgb(1, 1, 1);

/** A test tracking number: 'TEST' and 18 digits, the same for the same order so a retried label job reprints the same number. */
export function testTrackingNumber(orderNumber: string): string {
  const digest = createHash('sha256').update(`aurelia-test-label:${orderNumber}`).digest('hex');
  return `TEST${(BigInt(`0x${digest}`) % 10n ** 18n).toString().padStart(18, '0')}`;
}

export interface TestLabelInput {
  /** The order number, or for a return label the return number ('RMA-1001'). */
  orderNumber: string;
  /** A return label: the parcel goes from the customer back to the shop, and the label says RETURN. */
  returnLabel?: boolean;
  trackingNumber: string;
  from: Address;
  to: Address;
  parcel: Parcel;
  /** The service level shown to the shopper, e.g. 'Standard Shipping'. */
  service: string;
}

/** Draws the test label: banner, ship-from, ship-to, service and parcel, order number, Code 128 barcode of the tracking number. */
export async function testLabelPdf(input: TestLabelInput): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const what = input.returnLabel ? 'TEST RETURN LABEL' : 'TEST LABEL';
  pdf.setTitle(`${what} ${input.orderNumber}`);
  pdf.setSubject('Test shipping label: not valid postage');
  pdf.setCreator('Aurelia shop (embedded shipping rate table)');
  const page = pdf.addPage([LABEL_SIZE.width, LABEL_SIZE.height]);
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);

  // A faint diagonal watermark under everything else, so even a cropped or photocopied label shows what it is.
  page.drawText('TEST LABEL', {
    x: 40,
    y: 110,
    size: 44,
    font: bold,
    color: rgb(0.88, 0.88, 0.88),
    rotate: degrees(55),
  });
  page.drawRectangle({
    x: 4,
    y: 4,
    width: LABEL_SIZE.width - 8,
    height: LABEL_SIZE.height - 8,
    borderColor: BLACK,
    borderWidth: 1.5,
  });

  // Banner.
  let y = LABEL_SIZE.height - MARGIN;
  page.drawRectangle({ x: MARGIN, y: y - 30, width: INNER_WIDTH, height: 30, color: BLACK });
  line(page, bold, `${what} - NOT VALID POSTAGE`, { x: MARGIN + 8, y: y - 21, size: 14, color: WHITE });
  y -= 46;

  // Ship-from, small, as carriers print it.
  line(page, bold, 'FROM', { x: MARGIN, y, size: 7 });
  y -= 10;
  for (const text of addressLines(input.from)) {
    line(page, regular, text, { x: MARGIN, y, size: 8 });
    y -= 10;
  }
  y -= 6;
  rule(page, y);
  y -= 18;

  // Ship-to, large: what the carrier's sorter reads.
  line(page, bold, 'SHIP TO', { x: MARGIN, y, size: 8 });
  y -= 18;
  for (const text of addressLines(input.to)) {
    line(page, bold, text, { x: MARGIN + 10, y, size: 13 });
    y -= 17;
  }
  y -= 4;
  rule(page, y);
  y -= 16;

  const { length, width, height, weightLb } = input.parcel;
  line(page, bold, input.service.toUpperCase(), { x: MARGIN, y, size: 11 });
  y -= 14;
  line(page, regular, `${weightLb} lb  ·  ${length} × ${width} × ${height} in`, { x: MARGIN, y, size: 9 });
  y -= 14;
  line(page, regular, `${input.returnLabel ? 'Return' : 'Order'} ${input.orderNumber}`, { x: MARGIN, y, size: 9 });
  y -= 10;
  rule(page, y);

  // Barcode: 3.5 in wide gives 1.3 pt modules for a 22-character Code 128, well above what handheld scanners need.
  // Drawn as bars, not as a picture: sharp at any printer's resolution, and no image to encode and compress (a PNG
  // cost about 10 ms of the server's time per label).
  drawCode128(page, input.trackingNumber, { x: (LABEL_SIZE.width - 252) / 2, y: MARGIN + 44, width: 252, height: 62 });
  line(page, bold, `TRACKING # ${input.trackingNumber}`, { x: MARGIN, y: MARGIN + 28, size: 10, center: true });
  line(page, regular, 'TEST LABEL - this number tracks nothing', { x: MARGIN, y: MARGIN + 12, size: 8, center: true });

  return pdf.save();
}

/** A Code 128 symbol of `text` filling the box: its bars as black rectangles, the spaces between them left white. */
function drawCode128(page: PDFPage, text: string, box: { x: number; y: number; width: number; height: number }) {
  // bwip-js encodes the symbol: the widths, in modules, of bar, space, bar, … from the left.
  const [symbol] = bwipjs.raw('code128', text, {}) as { sbs: number[] }[];
  const widths = symbol?.sbs ?? [];
  const module = box.width / widths.reduce((sum, w) => sum + w, 0);
  let x = box.x;
  widths.forEach((w, i) => {
    if (i % 2 === 0) page.drawRectangle({ x, y: box.y, width: w * module, height: box.height, color: BLACK });
    x += w * module;
  });
}

function addressLines(a: Address): string[] {
  return [a.name, a.street1, ...(a.street2 ? [a.street2] : []), `${a.city}, ${a.state} ${a.zip}`, a.country];
}

function rule(page: PDFPage, y: number) {
  page.drawLine({ start: { x: MARGIN, y }, end: { x: LABEL_SIZE.width - MARGIN, y }, thickness: 1, color: BLACK });
}

/** One line of text that never overflows the label: characters the font cannot encode become '?', then it shrinks, then it is cut. */
function line(
  page: PDFPage,
  font: PDFFont,
  raw: string,
  {
    x,
    y,
    size,
    color = BLACK,
    center = false,
  }: { x: number; y: number; size: number; color?: ReturnType<typeof rgb>; center?: boolean },
) {
  const { text, size: at } = fitted(font, raw, size, LABEL_SIZE.width - MARGIN - x);
  const left = center ? (LABEL_SIZE.width - font.widthOfTextAtSize(text, at)) / 2 : x;
  page.drawText(text, { x: left, y, size: at, font, color });
}
