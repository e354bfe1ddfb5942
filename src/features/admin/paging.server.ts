// Keyset paging for the admin's lists: a page ends at a row, and the next page starts after it. Unlike an offset, a
// row that leaves the list (a review decided on) or joins it (a new message) does not shift the pages.

/** Where a page of a list ordered by (time desc, id desc) ends: its last row's time (ISO, to the microsecond) and id. */
export interface Cursor {
  at: string;
  id: string;
}

/**
 * SQL for a timestamptz column as exact ISO text (PostgreSQL keeps microseconds, a JavaScript Date only milliseconds:
 * a cursor rounded to the millisecond would skip or repeat rows). Send it back as text and cast it in SQL
 * (`$1::text::timestamptz`): postgres.js turns a parameter it knows to be a timestamptz into a Date first, which
 * drops the microseconds (rows in the cursor's millisecond were skipped on PostgreSQL).
 */
export const isoText = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * SQL for the insertion number (`seq`) of the row of `table` whose id is the parameter `param`: lists of rows keyed by
 * UUIDs order rows of the same time by it, and a cursor names its row by id. A row gone since is taken as the last
 * of its time, so the next page still starts after it.
 */
export const seqOf = (table: string, param: string) =>
  `coalesce((select seq from ${table} where id = ${param}::uuid), 9223372036854775807)`;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The cursor a page's address carries (`?at=…&id=…`), or undefined for the first page (also when it is malformed). */
export function cursorFrom(url: URL): Cursor | undefined {
  const at = url.searchParams.get('at') ?? '';
  const id = url.searchParams.get('id') ?? '';
  return ISO.test(at) && UUID.test(id) && !Number.isNaN(Date.parse(at)) ? { at, id } : undefined;
}

/** The address of the page after `cursor`, keeping the list's other parameters (its search and filters). */
export function pageAfter(path: string, cursor: Cursor, keep: URLSearchParams = new URLSearchParams()): string {
  return `${path}?${new URLSearchParams([...keep, ['at', cursor.at], ['id', cursor.id]])}`;
}

/** A page of rows and the cursor of the next one (undefined on the last page). */
export interface Page<T, C = Cursor> {
  rows: T[];
  next: C | undefined;
}

/** Splits `limit + 1` rows fetched into a page of `limit` and whether another follows. */
export function toPage<T, C = Cursor>(rows: T[], limit: number, cursorOf: (row: T) => C): Page<T, C> {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { rows: page, next: rows.length > limit && last ? cursorOf(last) : undefined };
}
