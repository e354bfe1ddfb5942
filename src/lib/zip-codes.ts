// Which state a ZIP code is in. The first three digits of a ZIP code (its sectional centre) belong to one state, so a
// small table is enough to refuse an address whose ZIP code is outside its state: shipping is priced by the state
// (product spec), and a label for "Beverly Hills, GA 90210" goes nowhere. Plain data, so the address island and the
// server's schema share it.

import { US_STATES, type UsStateCode } from './us-states';

/**
 * The 3-digit ZIP prefixes of each of the 50 states, as inclusive ranges. Prefixes of DC (200, 202–205, 569), Puerto
 * Rico and the Virgin Islands (006–009), the armed forces (090–098, 340, 962–966) and the Pacific territories (969)
 * are in none of them; so are prefixes never assigned. Where a prefix sits inside another state's run (055 in
 * Vermont's, 733 in Oklahoma's), the run is split around it.
 */
export const ZIP_PREFIXES: Readonly<Record<UsStateCode, readonly (readonly [number, number])[]>> = {
  AL: [[350, 369]],
  AK: [[995, 999]],
  AZ: [[850, 865]],
  AR: [[716, 729]],
  CA: [[900, 961]],
  CO: [[800, 816]],
  CT: [[60, 69]],
  DE: [[197, 199]],
  FL: [
    [320, 339],
    [341, 349],
  ],
  GA: [
    [300, 319],
    [398, 399],
  ],
  HI: [[967, 968]],
  ID: [[832, 838]],
  IL: [[600, 629]],
  IN: [[460, 479]],
  IA: [[500, 528]],
  KS: [[660, 679]],
  KY: [[400, 427]],
  LA: [[700, 714]],
  ME: [[39, 49]],
  MD: [[206, 219]],
  MA: [
    [10, 27],
    [55, 55],
  ],
  MI: [[480, 499]],
  MN: [[550, 567]],
  MS: [[386, 397]],
  MO: [[630, 658]],
  MT: [[590, 599]],
  NE: [[680, 693]],
  NV: [[889, 898]],
  NH: [[30, 38]],
  NJ: [[70, 89]],
  NM: [[870, 884]],
  NY: [
    [5, 5],
    [100, 149],
  ],
  NC: [[270, 289]],
  ND: [[580, 588]],
  OH: [[430, 459]],
  OK: [
    [730, 732],
    [734, 749],
  ],
  OR: [[970, 979]],
  PA: [[150, 196]],
  RI: [[28, 29]],
  SC: [[290, 299]],
  SD: [[570, 577]],
  TN: [[370, 385]],
  TX: [
    [733, 733],
    [750, 799],
    [885, 885],
  ],
  UT: [[840, 847]],
  VT: [
    [50, 54],
    [56, 59],
  ],
  VA: [
    [201, 201],
    [220, 246],
  ],
  WA: [[980, 994]],
  WV: [[247, 268]],
  WI: [[530, 549]],
  WY: [[820, 831]],
};

const STATE_OF_PREFIX = new Map<number, UsStateCode>(
  Object.entries(ZIP_PREFIXES).flatMap(([state, ranges]) =>
    ranges.flatMap(([from, to]) => Array.from({ length: to - from + 1 }, (_, i) => [from + i, state as UsStateCode] as const)),
  ),
);

const NAMES = new Map<string, string>(US_STATES.map((s) => [s.code, s.name]));

/** The state a ZIP code (5 digits, or ZIP+4) is in, or null for one outside the 50 states. */
export function stateOfZip(zip: string): UsStateCode | null {
  const digits = /^(\d{3})\d{2}(-\d{4})?$/.exec(zip.trim());
  return digits ? (STATE_OF_PREFIX.get(Number(digits[1])) ?? null) : null;
}

/**
 * Why a well-formed ZIP code does not go with the chosen state, in words for the shopper, or null when it does (or
 * when the ZIP code or state is malformed: those have messages of their own).
 */
export function zipStateProblem(zip: string, state: string): string | null {
  const chosen = NAMES.get(state);
  const zip5 = zip.trim().slice(0, 5);
  if (!chosen || !/^\d{5}(-\d{4})?$/.test(zip.trim())) return null;
  const actual = stateOfZip(zip);
  if (actual === state) return null;
  return actual
    ? `ZIP code ${zip5} is in ${NAMES.get(actual)}, not ${chosen}. Please check the ZIP code and state.`
    : `ZIP code ${zip5} is not in any of the 50 US states we ship to.`;
}
