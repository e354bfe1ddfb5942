import { describe, expect, it } from 'vitest';
import { instantToWall, shopIso, shopTimeWords, wallToInstant } from './shop-time';

const NY = 'America/New_York';
const iso = (d: Date | null) => d?.toISOString() ?? null;

describe('a time typed on the shop’s clock', () => {
  it('is the instant the shop’s clock reads it, in winter and in summer', () => {
    expect(iso(wallToInstant('2026-12-24T09:00', NY))).toBe('2026-12-24T14:00:00.000Z');
    expect(iso(wallToInstant('2026-07-04T09:00', NY))).toBe('2026-07-04T13:00:00.000Z');
    expect(iso(wallToInstant('2026-12-24T09:00:05', NY))).toBe('2026-12-24T14:00:05.000Z');
    expect(iso(wallToInstant('2026-12-24T09:00', 'Europe/London'))).toBe('2026-12-24T09:00:00.000Z');
    expect(iso(wallToInstant('2026-12-24T09:00', 'Asia/Kolkata'))).toBe('2026-12-24T03:30:00.000Z');
  });

  it('midnight that starts a day is that day’s first instant (a sale “until midnight” on the 24th ends on the 25th at 00:00)', () => {
    expect(iso(wallToInstant('2026-12-25T00:00', NY))).toBe('2026-12-25T05:00:00.000Z');
  });

  it('falls just after the change when the clocks skip it in spring, and is the first of the two in autumn', () => {
    // 8 March 2026: New York goes from 1:59:59 EST to 3:00 EDT; 2:30 does not exist on its clocks.
    expect(iso(wallToInstant('2026-03-08T02:30', NY))).toBe('2026-03-08T07:30:00.000Z');
    expect(iso(wallToInstant('2026-03-08T03:00', NY))).toBe('2026-03-08T07:00:00.000Z');
    // 1 November 2026: 1:30 happens twice (EDT, then EST): the first.
    expect(iso(wallToInstant('2026-11-01T01:30', NY))).toBe('2026-11-01T05:30:00.000Z');
    expect(iso(wallToInstant('2026-11-01T02:00', NY))).toBe('2026-11-01T07:00:00.000Z');
  });

  it('is no time at all when it cannot be one', () => {
    for (const wall of [
      '2026-02-30T09:00',
      '2026-12-24T24:00',
      '2026-12-24T09:60',
      '2026-12-24 09:00',
      '',
      'soon',
      '1999-12-31T23:59',
    ])
      expect(wallToInstant(wall, NY), wall).toBeNull();
  });
});

describe('an instant shown on the shop’s clock', () => {
  it('reads back as typed, with seconds only when there are some', () => {
    for (const wall of ['2026-12-24T09:00', '2026-07-04T23:59', '2026-12-24T09:00:05', '2026-11-01T01:30']) {
      const instant = wallToInstant(wall, NY);
      if (!instant) throw new Error(wall);
      expect(instantToWall(instant, NY)).toBe(wall);
    }
  });

  it('is written in the files with its offset, and said in words with its zone', () => {
    const instant = new Date('2026-12-24T14:00:00Z');
    expect(shopIso(instant, NY)).toBe('2026-12-24T09:00:00-05:00');
    expect(shopIso(new Date('2026-07-04T13:00:00Z'), NY)).toBe('2026-07-04T09:00:00-04:00');
    expect(shopTimeWords(instant, NY)).toBe('Dec 24, 2026, 9:00 AM EST');
    expect(shopTimeWords(new Date('2026-12-24T14:00:05Z'), NY)).toBe('Dec 24, 2026, 9:00:05 AM EST');
  });
});
