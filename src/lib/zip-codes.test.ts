import { describe, expect, it } from 'vitest';
import { US_STATES } from './us-states';
import { stateOfZip, ZIP_PREFIXES, zipStateProblem } from './zip-codes';

/** A real ZIP code of each state's capital (or largest post office). */
const CAPITALS = {
  AL: '36104',
  AK: '99801',
  AZ: '85001',
  AR: '72201',
  CA: '95814',
  CO: '80202',
  CT: '06103',
  DE: '19901',
  FL: '32301',
  GA: '30303',
  HI: '96813',
  ID: '83702',
  IL: '62701',
  IN: '46204',
  IA: '50309',
  KS: '66603',
  KY: '40601',
  LA: '70802',
  ME: '04330',
  MD: '21401',
  MA: '02108',
  MI: '48933',
  MN: '55102',
  MS: '39201',
  MO: '65101',
  MT: '59601',
  NE: '68508',
  NV: '89701',
  NH: '03301',
  NJ: '08608',
  NM: '87501',
  NY: '12207',
  NC: '27601',
  ND: '58501',
  OH: '43215',
  OK: '73102',
  OR: '97301',
  PA: '17101',
  RI: '02903',
  SC: '29201',
  SD: '57501',
  TN: '37219',
  TX: '78701',
  UT: '84111',
  VT: '05602',
  VA: '23219',
  WA: '98501',
  WV: '25301',
  WI: '53703',
  WY: '82001',
} as const;

const zipOf = (prefix: number, rest = '01') => `${String(prefix).padStart(3, '0')}${rest}`;

describe('which state a ZIP code is in', () => {
  it('knows a ZIP code of every one of the 50 states', () => {
    expect(Object.keys(ZIP_PREFIXES).sort()).toEqual(US_STATES.map((s) => s.code).sort());
    for (const [state, zip] of Object.entries(CAPITALS)) expect(stateOfZip(zip), zip).toBe(state);
  });

  it.each(Object.entries(ZIP_PREFIXES))(
    '%s: every prefix of its ranges, and the ones on either side are not its',
    (state, ranges) => {
      for (const [from, to] of ranges) {
        for (let prefix = from; prefix <= to; prefix++) expect(stateOfZip(zipOf(prefix)), zipOf(prefix)).toBe(state);
        if (from > 0) expect(stateOfZip(zipOf(from - 1)), zipOf(from - 1)).not.toBe(state);
        if (to < 999) expect(stateOfZip(zipOf(to + 1)), zipOf(to + 1)).not.toBe(state);
      }
    },
  );

  it('no prefix belongs to two states', () => {
    const seen = new Map<number, string>();
    for (const [state, ranges] of Object.entries(ZIP_PREFIXES))
      for (const [from, to] of ranges)
        for (let p = from; p <= to; p++) {
          expect(seen.get(p), `${p} is ${seen.get(p)} and ${state}`).toBeUndefined();
          seen.set(p, state);
        }
  });

  it('places the prefixes inside another state’s run, and ZIP+4, where they belong', () => {
    expect(stateOfZip('73301')).toBe('TX'); // Austin's IRS centre, among Oklahoma's
    expect(stateOfZip('88510')).toBe('TX'); // El Paso, among New Mexico's
    expect(stateOfZip('05501')).toBe('MA'); // Andover, among Vermont's
    expect(stateOfZip('00501')).toBe('NY'); // Holtsville
    expect(stateOfZip('39901')).toBe('GA');
    expect(stateOfZip('90210-1234')).toBe('CA');
  });

  it('knows no state for DC, the territories, the armed forces or an unassigned prefix', () => {
    for (const zip of ['20500', '20001', '56901', '00601', '00801', '09001', '34001', '96201', '96910', '00001', '99'])
      expect(stateOfZip(zip), zip).toBeNull();
  });
});

describe('a ZIP code outside its state', () => {
  it('is named with the state it is in', () => {
    expect(zipStateProblem('90210', 'GA')).toBe(
      'ZIP code 90210 is in California, not Georgia. Please check the ZIP code and state.',
    );
    expect(zipStateProblem('20500', 'MD')).toBe('ZIP code 20500 is not in any of the 50 US states we ship to.');
  });

  it('is no problem when it is the state’s, or when the ZIP code or state is malformed (they have messages of their own)', () => {
    expect(zipStateProblem('90210', 'CA')).toBeNull();
    expect(zipStateProblem(' 31401-0001 ', 'GA')).toBeNull();
    expect(zipStateProblem('9021', 'GA')).toBeNull();
    expect(zipStateProblem('90210', 'PR')).toBeNull();
  });
});
