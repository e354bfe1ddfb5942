import { describe, expect, it } from 'vitest';
import {
  addDays,
  change,
  daysFrom,
  daysLabel,
  decimalAmount,
  exportRange,
  niceCeiling,
  salesPeriod,
  startOfDay,
  zonedDay,
  zonedInstant,
  zonedIso,
} from './sales';

const NY = 'America/New_York';
const iso = (d: Date) => d.toISOString();

describe('the shop’s days', () => {
  it('put a time on the day of the shop’s clock, not of UTC, either side of midnight', () => {
    // 11:30 pm in New York is already the next day in UTC.
    expect(zonedDay(new Date('2026-11-25T04:30:00Z'), NY)).toBe('2026-11-24');
    expect(zonedDay(new Date('2026-11-25T04:59:59.999Z'), NY)).toBe('2026-11-24');
    expect(zonedDay(new Date('2026-11-25T05:00:00Z'), NY)).toBe('2026-11-25');
    expect(zonedDay(new Date('2026-11-25T04:30:00Z'), 'UTC')).toBe('2026-11-25');
    // Ahead of UTC: 1 am in Tokyo is the evening before in UTC.
    expect(zonedDay(new Date('2026-11-24T16:00:00Z'), 'Asia/Tokyo')).toBe('2026-11-25');
  });

  it('start at the shop’s midnight, whatever the offset that day', () => {
    expect(iso(startOfDay('2026-11-25', NY))).toBe('2026-11-25T05:00:00.000Z');
    expect(iso(startOfDay('2026-07-04', NY))).toBe('2026-07-04T04:00:00.000Z');
    expect(iso(startOfDay('2026-11-25', 'UTC'))).toBe('2026-11-25T00:00:00.000Z');
    expect(iso(startOfDay('2026-11-25', 'Asia/Kolkata'))).toBe('2026-11-24T18:30:00.000Z');
  });

  it('are 23 hours long when the clocks go forward and 25 when they go back', () => {
    // New York: 2 am becomes 3 am on 8 March 2026; 2 am becomes 1 am on 1 November 2026.
    const hours = (day: string) => (startOfDay(addDays(day, 1), NY).getTime() - startOfDay(day, NY).getTime()) / 3_600_000;
    expect(hours('2026-03-07')).toBe(24);
    expect(hours('2026-03-08')).toBe(23);
    expect(hours('2026-11-01')).toBe(25);
    expect(hours('2026-11-02')).toBe(24);
  });

  it('read a time the clocks skip as PostgreSQL does, and a repeated one as its first', () => {
    // 2:30 am on 8 March does not exist in New York: read with the offset before (EST), it is 3:30 am EDT.
    expect(iso(zonedInstant('2026-03-08', 2.5 * 3_600_000, NY))).toBe('2026-03-08T07:30:00.000Z');
    // 1:30 am on 1 November happens twice: first in EDT.
    expect(iso(zonedInstant('2026-11-01', 1.5 * 3_600_000, NY))).toBe('2026-11-01T05:30:00.000Z');
    // In Santiago, midnight is skipped when summer time starts (6 September 2026): the day starts at 1 am, -03.
    expect(iso(startOfDay('2026-09-06', 'America/Santiago'))).toBe('2026-09-06T04:00:00.000Z');
    expect(zonedDay(new Date('2026-09-06T03:59:59Z'), 'America/Santiago')).toBe('2026-09-05');
    expect(zonedDay(new Date('2026-09-06T04:00:00Z'), 'America/Santiago')).toBe('2026-09-06');
  });

  it('run over months and years', () => {
    expect(addDays('2026-02-28', 1)).toBe('2026-03-01');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2026-01-01', -1)).toBe('2025-12-31');
    expect(daysFrom('2025-12-30', '2026-01-02')).toEqual(['2025-12-30', '2025-12-31', '2026-01-01', '2026-01-02']);
  });
});

describe('the overview’s periods', () => {
  it('are the last N days, today so far, against the N days before as far into their last day', () => {
    // Tuesday 10 March 2026, 9 am in New York (EDT since Sunday).
    const now = new Date('2026-03-10T13:00:00Z');
    const week = salesPeriod('7d', now, NY);
    expect(week.current.days).toEqual(daysFrom('2026-03-04', '2026-03-10'));
    expect(iso(week.current.start)).toBe('2026-03-04T05:00:00.000Z');
    expect(week.current.end).toBe(now);
    expect(week.previous.days).toEqual(daysFrom('2026-02-25', '2026-03-03'));
    expect(iso(week.previous.start)).toBe('2026-02-25T05:00:00.000Z');
    // 9 am on Tuesday 3 March, in EST.
    expect(iso(week.previous.end)).toBe('2026-03-03T14:00:00.000Z');
    expect(week.previousLabel).toBe('the 7 days before');

    const month = salesPeriod('30d', now, NY);
    expect(month.current.days).toHaveLength(30);
    expect(month.previous.days).toHaveLength(30);
    expect(month.current.days[0]).toBe('2026-02-09');
    expect(month.previous.days.at(-1)).toBe('2026-02-08');
    const quarter = salesPeriod('90d', now, NY);
    expect(quarter.current.days).toHaveLength(90);
    expect(quarter.previous.days).toHaveLength(90);
    expect(addDays(quarter.previous.days.at(-1) ?? '', 1)).toBe(quarter.current.days[0]);
  });

  it('take today as the shop’s today: late evening in New York is already tomorrow in UTC', () => {
    // 11:30 pm on 24 November in New York.
    const week = salesPeriod('7d', new Date('2026-11-25T04:30:00Z'), NY);
    expect(week.current.days.at(-1)).toBe('2026-11-24');
    expect(iso(week.current.start)).toBe('2026-11-18T05:00:00.000Z');
    expect(iso(week.previous.end)).toBe('2026-11-18T04:30:00.000Z');
    // The same instant in UTC is the 25th.
    expect(salesPeriod('7d', new Date('2026-11-25T04:30:00Z'), 'UTC').current.days.at(-1)).toBe('2026-11-25');
  });

  it('meet without a gap or an overlap', () => {
    for (const now of ['2026-11-25T04:30:00Z', '2026-03-08T06:59:00Z', '2026-11-01T05:30:00Z', '2026-01-01T05:00:00Z']) {
      for (const key of ['7d', '30d', '90d'] as const) {
        const p = salesPeriod(key, new Date(now), NY);
        expect(p.previous.end.getTime(), `${key} ${now}`).toBeLessThanOrEqual(p.current.start.getTime());
        expect(iso(startOfDay(addDays(p.previous.days.at(-1) ?? '', 1), NY))).toBe(iso(p.current.start));
      }
    }
  });

  it('compare this year with the same days of last year, the 29th of February with the 28th', () => {
    const now = new Date('2026-11-25T15:00:00Z');
    const year = salesPeriod('ytd', now, NY);
    expect(year.current.days[0]).toBe('2026-01-01');
    expect(year.current.days.at(-1)).toBe('2026-11-25');
    expect(iso(year.current.start)).toBe('2026-01-01T05:00:00.000Z');
    expect(year.previous.days[0]).toBe('2025-01-01');
    expect(year.previous.days.at(-1)).toBe('2025-11-25');
    expect(iso(year.previous.end)).toBe('2025-11-25T15:00:00.000Z');
    expect(year.previousLabel).toBe('the same days last year');
    const leap = salesPeriod('ytd', new Date('2028-02-29T12:00:00Z'), 'UTC');
    expect(leap.previous.days.at(-1)).toBe('2027-02-28');
    expect(iso(leap.previous.end)).toBe('2027-02-28T12:00:00.000Z');
    // New Year's Eve at 11 pm in New York: still this year there, though next year in UTC.
    expect(salesPeriod('ytd', new Date('2026-01-01T04:00:00Z'), NY).current.days).toHaveLength(365);
  });
});

describe('the overview’s words and the export’s cells', () => {
  it('say a change as a person would', () => {
    expect(change(120, 100)).toBe('+20%');
    expect(change(80, 100)).toBe('−20%');
    expect(change(100, 100)).toBe('no change');
    expect(change(0, 0)).toBe('no change');
    expect(change(5, 0)).toBe('new');
    expect(change(1001, 1000)).toBe('+<1%');
    expect(change(999, 1000)).toBe('−<1%');
    expect(change(0, 40)).toBe('−100%');
  });

  it('write money as plain decimals and times on the shop’s clock with its offset', () => {
    expect(decimalAmount(0)).toBe('0.00');
    expect(decimalAmount(5)).toBe('0.05');
    expect(decimalAmount(123_456)).toBe('1234.56');
    expect(decimalAmount(-250)).toBe('-2.50');
    expect(zonedIso(new Date('2026-11-25T04:30:12.345Z'), NY)).toBe('2026-11-24T23:30:12-05:00');
    expect(zonedIso(new Date('2026-07-04T16:00:00Z'), NY)).toBe('2026-07-04T12:00:00-04:00');
    expect(zonedIso(new Date('2026-11-25T04:30:00Z'), 'Asia/Kolkata')).toBe('2026-11-25T10:00:00+05:30');
    expect(zonedIso(new Date('2026-11-25T04:30:00Z'), 'UTC')).toBe('2026-11-25T04:30:00+00:00');
  });

  it('name runs of days and round a chart’s scale', () => {
    expect(daysLabel(['2026-11-23', '2026-11-24', '2026-11-25'])).toBe('Nov 23 – Nov 25, 2026');
    expect(daysLabel(['2025-12-31', '2026-01-01'])).toBe('Dec 31, 2025 – Jan 1, 2026');
    expect(daysLabel(['2026-11-25'])).toBe('Nov 25, 2026');
    expect(niceCeiling(0)).toBe(1);
    expect(niceCeiling(7)).toBe(10);
    expect(niceCeiling(180)).toBe(200);
    expect(niceCeiling(220)).toBe(250);
    expect(niceCeiling(4_100)).toBe(5_000);
    expect(niceCeiling(1_000)).toBe(1_000);
  });
});

describe('the export’s range', () => {
  const now = new Date('2026-11-25T04:30:00Z');
  const read = (query: string) => exportRange(new URLSearchParams(query), now, NY);

  it('is every order, a period of the overview, or days from and to (the shop’s)', () => {
    expect(read('')).toEqual({ ok: true, range: { from: null, to: null } });
    expect(read('period=7d')).toEqual({ ok: true, range: { from: '2026-11-18', to: '2026-11-24' } });
    expect(read('period=ytd')).toEqual({ ok: true, range: { from: '2026-01-01', to: '2026-11-24' } });
    expect(read('from=2026-10-01&to=2026-10-31')).toEqual({ ok: true, range: { from: '2026-10-01', to: '2026-10-31' } });
    expect(read('from=2026-10-01')).toEqual({ ok: true, range: { from: '2026-10-01', to: null } });
    expect(read('to=2026-10-31&from=')).toEqual({ ok: true, range: { from: null, to: '2026-10-31' } });
  });

  it('refuses what it cannot read, saying why', () => {
    expect(read('period=week')).toEqual({ ok: false, message: 'The period must be one of 7d, 30d, 90d, ytd.' });
    expect(read('period=7d&from=2026-10-01')).toEqual({
      ok: false,
      message: 'Give either a period or from and to, not both.',
    });
    expect(read('from=2026-02-30')).toEqual({
      ok: false,
      message: 'from must be a day written YYYY-MM-DD, such as 2026-11-25.',
    });
    expect(read("to=1' or '1'='1")).toMatchObject({ ok: false, message: expect.stringMatching(/^to must be a day/) });
    expect(read('from=2026-10-31&to=2026-10-01')).toEqual({
      ok: false,
      message: 'The range ends before it starts: to is earlier than from.',
    });
    expect(read('from=2026-10-01&from=2026-10-02')).toEqual({ ok: false, message: 'Give from once.' });
    expect(read('status=cancelled')).toEqual({
      ok: false,
      message: "Unknown parameter 'status': use period, or from and to.",
    });
  });
});
