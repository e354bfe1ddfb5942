// @public: other features may import this module (the rule is in tests/unit/import-rules.test.ts).
// The sales overview's periods and days, in the shop's time zone (SHOP_TIME_ZONE): which instants a period starts and
// ends at, the period before it to compare with, and the days in between. Pure: the server turns these instants into
// query parameters, and the unit tests check them around midnight and the changes to and from daylight saving time.

/** A calendar day, YYYY-MM-DD. */
export type Day = string;

/** The periods the overview offers: the last 7, 30 and 90 days (today included, so far), and this year so far. */
export const SALES_PERIODS = ['7d', '30d', '90d', 'ytd'] as const;
export type SalesPeriodKey = (typeof SALES_PERIODS)[number];
export const DEFAULT_PERIOD: SalesPeriodKey = '30d';

export const PERIOD_LABELS: Record<SalesPeriodKey, string> = {
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  '90d': 'Last 90 days',
  ytd: 'This year',
};

const PERIOD_DAYS: Record<Exclude<SalesPeriodKey, 'ytd'>, number> = { '7d': 7, '30d': 30, '90d': 90 };

/** A stretch of time: from `start` (included) to `end` (excluded), and the shop's days it touches, in order. */
export interface Span {
  start: Date;
  end: Date;
  days: Day[];
}

/** A period of the overview and the one it is compared with (as long, in days, and as far into its last day). */
export interface SalesPeriod {
  key: SalesPeriodKey;
  label: string;
  current: Span;
  previous: Span;
  /** How the comparison is named: 'the 7 days before', 'the same days last year'. */
  previousLabel: string;
}

export function isPeriodKey(value: string | null | undefined): value is SalesPeriodKey {
  return (SALES_PERIODS as readonly string[]).includes(value ?? '');
}

const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Whether `value` is a real calendar day written YYYY-MM-DD (not 2026-02-30). */
export function isDay(value: string | null | undefined): value is Day {
  if (!value || !DAY.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/**
 * The days an admin's filters take: the shop cannot have orders before 1970, nor a calendar far beyond its own time.
 * A day outside them is refused (the export) or left out (the orders list), never turned into an instant the time-zone
 * arithmetic or the database cannot hold (`?from=0001-01-01&to=9999-12-31` was a 500).
 */
export const FIRST_FILTER_DAY: Day = '1970-01-01';
export const LAST_FILTER_DAY: Day = '2200-12-31';

/** Whether `value` is a real day (isDay) within the days an admin's filters take. */
export function isFilterDay(value: string | null | undefined): value is Day {
  return isDay(value) && value >= FIRST_FILTER_DAY && value <= LAST_FILTER_DAY;
}

/** The day `n` days after `day` (before, when negative). */
export function addDays(day: Day, n: number): Day {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

/** Every day from `first` to `last`, both included. */
export function daysFrom(first: Day, last: Day): Day[] {
  const days: Day[] = [];
  for (let day = first; day <= last; day = addDays(day, 1)) days.push(day);
  return days;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function wallFormat(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(timeZone, f);
  }
  return f;
}

/** What a clock in `timeZone` reads at `instant`, written as if that were UTC, in milliseconds. */
function wallClock(instant: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const { type, value } of wallFormat(timeZone).formatToParts(new Date(instant))) parts[type] = Number(value);
  const { year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
  return Date.UTC(year, month - 1, day, hour, minute, second) + (((instant % 1000) + 1000) % 1000);
}

/** How far ahead of UTC the clocks in `timeZone` are at `instant`, in milliseconds (New York in winter: −5 h). */
export function zoneOffset(instant: number, timeZone: string): number {
  return wallClock(instant, timeZone) - instant;
}

/** The shop's day at `instant`. */
export function zonedDay(instant: Date, timeZone: string): Day {
  return new Date(wallClock(instant.getTime(), timeZone)).toISOString().slice(0, 10);
}

/** How long after the start of the shop's day `instant` falls, by the clock on the wall (ms). */
function timeOfDay(instant: Date, timeZone: string): number {
  return wallClock(instant.getTime(), timeZone) % DAY_MS;
}

/**
 * The instant the clocks in `timeZone` read `ms` after midnight on `day`. A time the clocks skip (the hour lost in
 * spring; in Santiago, midnight itself) is read with the offset before the change, as PostgreSQL's `timestamp at time
 * zone` reads it, so it falls just after the change: a day that starts at 1 am starts then. A time the clocks show twice
 * (the hour repeated in autumn) is the first time, when that hour began (PostgreSQL takes the second).
 */
export function zonedInstant(day: Day, ms: number, timeZone: string): Date {
  const wall = Date.parse(`${day}T00:00:00Z`) + ms;
  // The offsets a day either side: a zone changes its clocks at most once in two days.
  const before = zoneOffset(wall - DAY_MS, timeZone);
  const after = zoneOffset(wall + DAY_MS, timeZone);
  const candidates = [wall - before, wall - after].filter((t) => wallClock(t, timeZone) === wall);
  return new Date(candidates.length > 0 ? Math.min(...candidates) : wall - before);
}

/** The first instant of the shop's `day`. */
export function startOfDay(day: Day, timeZone: string): Date {
  return zonedInstant(day, 0, timeZone);
}

/**
 * The period `key` as it stands at `now`: the last N days are today (so far) and the N − 1 days before it; this year
 * runs from the 1st of January. The period before is as many days, ending as far into its last day as `now` is into
 * today (so a Monday morning is compared with a Monday morning, not with a whole day); this year is compared with the
 * same days of last year (the 29th of February, when there is none, with the 28th).
 */
export function salesPeriod(key: SalesPeriodKey, now: Date, timeZone: string): SalesPeriod {
  const today = zonedDay(now, timeZone);
  const clock = timeOfDay(now, timeZone);
  let first: Day;
  let previousFirst: Day;
  let previousLast: Day;
  let previousLabel: string;
  if (key === 'ytd') {
    const year = Number(today.slice(0, 4));
    first = `${year}-01-01`;
    previousFirst = `${year - 1}-01-01`;
    const sameDay = `${year - 1}${today.slice(4)}`;
    previousLast = isDay(sameDay) ? sameDay : `${year - 1}-02-28`;
    previousLabel = 'the same days last year';
  } else {
    const n = PERIOD_DAYS[key];
    first = addDays(today, -(n - 1));
    previousFirst = addDays(today, -(2 * n - 1));
    previousLast = addDays(today, -n);
    previousLabel = `the ${n} days before`;
  }
  return {
    key,
    label: PERIOD_LABELS[key],
    current: { start: startOfDay(first, timeZone), end: now, days: daysFrom(first, today) },
    previous: {
      start: startOfDay(previousFirst, timeZone),
      end: zonedInstant(previousLast, clock, timeZone),
      days: daysFrom(previousFirst, previousLast),
    },
    previousLabel,
  };
}

/** A change from `before` to `now` in words: '+12%', '−8%', 'no change', or 'new' when there was nothing before. */
export function change(now: number, before: number): string {
  if (before === 0) return now === 0 ? 'no change' : 'new';
  const percent = Math.round(((now - before) / Math.abs(before)) * 100);
  if (percent === 0) return now === before ? 'no change' : now > before ? '+<1%' : '−<1%';
  return percent > 0 ? `+${percent}%` : `−${Math.abs(percent)}%`;
}

/** Cents as a plain decimal amount for a spreadsheet: 123456 → '1234.56' (no currency sign, no thousands separator). */
export function decimalAmount(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(Math.trunc(cents));
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/**
 * A time as a spreadsheet and an accountant read it: ISO 8601 on the shop's clock, with its offset
 * ('2026-11-25T04:30:12-05:00').
 */
export function zonedIso(instant: Date, timeZone: string): string {
  const t = instant.getTime();
  const wall = new Date(wallClock(t - (((t % 1000) + 1000) % 1000), timeZone)).toISOString().slice(0, 19);
  const offset = Math.round(zoneOffset(t, timeZone) / 60_000);
  const abs = Math.abs(offset);
  const hhmm = `${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${wall}${offset < 0 ? '-' : '+'}${hhmm}`;
}

/** The orders an export is asked for: all of them, or those placed from one of the shop's days to another. */
export type ExportRange = { from: Day | null; to: Day | null };

/**
 * The export's range from its address: `?period=7d|30d|90d|ytd` (the overview's periods), or `?from=…&to=…` (the shop's
 * days, both included, either may be left out), or nothing for every order. Anything else is refused with the reason,
 * rather than quietly exporting something other than what was asked for.
 */
export function exportRange(
  params: URLSearchParams,
  now: Date,
  timeZone: string,
): { ok: true; range: ExportRange } | { ok: false; message: string } {
  const known = new Set(['period', 'from', 'to']);
  const unknown = [...params.keys()].find((k) => !known.has(k));
  if (unknown) return { ok: false, message: `Unknown parameter '${unknown.slice(0, 40)}': use period, or from and to.` };
  for (const name of known) if (params.getAll(name).length > 1) return { ok: false, message: `Give ${name} once.` };
  const period = params.get('period');
  const from = params.get('from') || null;
  const to = params.get('to') || null;
  if (period !== null) {
    if (from || to) return { ok: false, message: 'Give either a period or from and to, not both.' };
    if (!isPeriodKey(period)) return { ok: false, message: `The period must be one of ${SALES_PERIODS.join(', ')}.` };
    const { current } = salesPeriod(period, now, timeZone);
    return { ok: true, range: { from: current.days[0] ?? null, to: current.days.at(-1) ?? null } };
  }
  for (const [name, value] of [
    ['from', from],
    ['to', to],
  ] as const)
    if (value !== null) {
      if (!isDay(value)) return { ok: false, message: `${name} must be a day written YYYY-MM-DD, such as 2026-11-25.` };
      if (!isFilterDay(value))
        return { ok: false, message: `${name} must be a day from ${FIRST_FILTER_DAY} to ${LAST_FILTER_DAY}.` };
    }
  if (from && to && to < from) return { ok: false, message: 'The range ends before it starts: to is earlier than from.' };
  return { ok: true, range: { from, to } };
}

const dayFormats = {
  short: new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' }),
  long: new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric', timeZone: 'UTC' }),
};

/** A day as the admin writes it: 'Nov 25, 2026', or 'Nov 25' without the year. */
export function dayLabel(day: Day, withYear = true): string {
  return dayFormats[withYear ? 'long' : 'short'].format(new Date(`${day}T12:00:00Z`));
}

/** A run of days in words: 'Nov 23 – Nov 29, 2026', 'Dec 28, 2025 – Jan 3, 2026', or one day. */
export function daysLabel(days: readonly Day[]): string {
  const first = days[0];
  const last = days.at(-1);
  if (!first || !last) return '';
  if (first === last) return dayLabel(first);
  return `${dayLabel(first, first.slice(0, 4) !== last.slice(0, 4))} – ${dayLabel(last)}`;
}

/** A round number at least `value`, for the top of a chart's scale: 1, 2, 2.5 or 5 times a power of ten. */
export function niceCeiling(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 2.5, 5, 10].find((step) => step * power >= value) ?? 10) * power;
}
