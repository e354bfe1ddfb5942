import type { PDFFont } from 'pdf-lib';

// Text for PDFs drawn with the standard fonts (labels, packing slips): they cover WinAnsi only, and a line must never
// run past its box. Whatever a shopper typed (a name in another script, a very long street) must not fail the document.

/** `raw` in characters the font can draw: any other becomes '?'. */
export function drawable(font: PDFFont, raw: string): string {
  const supported = new Set(font.getCharacterSet());
  return [...raw].map((c) => (supported.has(c.codePointAt(0) ?? 0) ? c : '?')).join('');
}

/**
 * `raw` fitted into `maxWidth` at `size`: drawable, then shrunk down to 70 % of the size, then cut with '…'. Returns
 * the text and the size to draw it at.
 */
export function fitted(font: PDFFont, raw: string, size: number, maxWidth: number): { text: string; size: number } {
  let text = drawable(font, raw);
  let at = size;
  while (at > size * 0.7 && font.widthOfTextAtSize(text, at) > maxWidth) at -= 0.5;
  while (text.length > 1 && font.widthOfTextAtSize(text, at) > maxWidth) text = `${text.slice(0, -2)}…`;
  return { text, size: at };
}
