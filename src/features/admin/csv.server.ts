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
