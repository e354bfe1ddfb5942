// CSV for spreadsheets (RFC 4180), safe to open: a cell that a spreadsheet would read as a formula is written as text.

/** Characters that make Excel, LibreOffice or Google Sheets treat a cell as a formula (OWASP's list). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One cell: prefixed with ' when it would start a formula (an address such as `=HYPERLINK(…)@x.com` is a valid
 * e-mail), and quoted, with its quotes doubled, when it holds a comma, a quote or a line break.
 */
export function csvCell(value: string): string {
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One line, ended with CRLF as RFC 4180 asks. */
export function csvRow(cells: readonly string[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/**
 * A CSV download written as it is read: the header line first, then one page of lines at a time, each page asked for
 * only when the client has taken the last (so a long export never sits in memory). `page(after)` answers the next
 * page's lines and where the one after it starts, or no `next` when it was the last.
 */
export function csvStream<C>(
  header: readonly string[],
  page: (after: C | undefined) => Promise<{ lines: string[]; next: C | undefined }>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let after: C | undefined;
  let started = false;
  let done = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(csvRow(header)));
        return;
      }
      if (done) return;
      const { lines, next } = await page(after);
      if (lines.length > 0) controller.enqueue(encoder.encode(lines.join('')));
      after = next;
      if (next === undefined) {
        done = true;
        controller.close();
      }
    },
    cancel() {
      done = true;
    },
  });
}
