// Times an editor types and reads on the shop's clock (SHOP_TIME_ZONE): a sale's start and end, a scheduled publish.
// A datetime-local field gives 'YYYY-MM-DDTHH:MM' (with ':SS' when the field takes seconds); the catalogue's files
// keep the instant with the shop's offset ('2026-12-24T09:00:00-05:00'). Pure, for the islands, the server and tests.
import { dateFormat } from '@/lib/dates';
import { zonedInstant, zonedIso } from '../admin/sales/sales';

/** A moment on a wall clock, as a datetime-local field writes it. */
export const WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

/**
 * The instant the shop's clock (`timeZone`) reads `wall`, or null when it is no such time (hour 25, 30 February). A time
 * the clocks skip in spring (2:30 am on the day they go forward) falls just after the change (3:30 am); a time they
 * show twice in autumn is the first of the two.
 */
export function wallToInstant(wall: string, timeZone: string): Date | null {
  const m = WALL_TIME.exec(wall.trim());
  if (!m) return null;
  const [year, month, day, hours, minutes, seconds] = m.slice(1).map((part) => Number(part ?? 0)) as number[];
  const date = new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, day ?? 0));
  if (date.getUTCMonth() !== (month ?? 1) - 1 || date.getUTCDate() !== day || (year ?? 0) < 2000 || (year ?? 0) > 2999)
    return null;
  if ((hours ?? 0) > 23 || (minutes ?? 0) > 59 || (seconds ?? 0) > 59) return null;
  const ms = (((hours ?? 0) * 60 + (minutes ?? 0)) * 60 + (seconds ?? 0)) * 1000;
  return zonedInstant(date.toISOString().slice(0, 10), ms, timeZone);
}

/** An instant as the shop's clock reads it, for a datetime-local field: '2026-12-24T09:00' (':SS' when not 0). */
export function instantToWall(instant: Date, timeZone: string): string {
  const wall = zonedIso(instant, timeZone).slice(0, 19);
  return wall.endsWith(':00') ? wall.slice(0, 16) : wall;
}

/** An instant as a product file keeps it: ISO 8601 on the shop's clock, with its offset ('2026-12-24T09:00:00-05:00'). */
export function shopIso(instant: Date, timeZone: string): string {
  return zonedIso(instant, timeZone);
}

/** An instant in words on the shop's clock: 'Dec 24, 2026, 9:00 AM EST' (with its seconds when not 0). */
export function shopTimeWords(instant: Date, timeZone: string): string {
  const words = dateFormat(timeZone, true).format(instant);
  const seconds = instant.getUTCSeconds();
  return seconds === 0 ? words : words.replace(/(\d{1,2}:\d{2})(\s)/, `$1:${String(seconds).padStart(2, '0')}$2`);
}
