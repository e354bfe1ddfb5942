import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureStart, PEAK_LIMIT_MB } from '../../scripts/bench-memory.mjs';
import { expect, test } from './fixtures';

// The embedded default fits a small machine (issue 47). `npm run bench:memory` measures it on a quiet machine against
// its limits (250 MB at rest, 400 MB at its peak): 225-240 MB at rest and 276-327 at its peak here, once the server has
// given back what start-up grew (5 s without a request: src/edge/memory-at-rest.ts). This test runs beside the rest of
// the suite, where the server settles more slowly, so it rests 10 s and allows 280 MB: the 300 MB the server held before
// it gave memory back fails it. The peak's limit is the target itself.
const REST_GUARD_MB = 280;

test.describe('the embedded shop on a small machine', () => {
  // Two starts and 10 s of rest after each: a start beside the whole suite on two cores has taken over 30 s.
  test.setTimeout(240_000);

  test('stays small at rest and at its peak, on its first start and on a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'aurelia-memory-'));
    try {
      for (const start of ['first start', 'restart']) {
        const memory = await measureStart({ dataDir, restMs: 10_000 });
        expect(memory.rest, `${start}: resident at rest, MB`).toBeLessThanOrEqual(REST_GUARD_MB);
        expect(memory.peak, `${start}: peak, MB`).toBeLessThanOrEqual(PEAK_LIMIT_MB);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
