import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureStart, PEAK_LIMIT_MB } from '../../scripts/bench-memory.mjs';
import { expect, test } from './fixtures';

// The embedded default fits a small machine (issue 47). `npm run bench:memory` measures it on a quiet machine against
// its limits (250 MB at rest, 400 MB at its peak). Since every server renders the catalogue's pages itself (decision
// 019: the page components and React's server renderer are loaded in every server) it measured 295-299 MB at rest and
// 299-333 at its peak here, over the 250 MB target (before: 234-246 and 238-255). This test runs beside the rest of the
// suite, where the server settles more slowly (316 MB measured under CI's load), so at rest it allows 340 MB: enough to
// catch the 480-610 MB the server held before, without failing on a busy machine's noise. The peak's limit is the
// target itself.
const REST_GUARD_MB = 340;

test.describe('the embedded shop on a small machine', () => {
  test.slow();

  test('stays small at rest and at its peak, on its first start and on a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'aurelia-memory-'));
    try {
      for (const start of ['first start', 'restart']) {
        const memory = await measureStart({ dataDir, restMs: 5_000 });
        expect(memory.rest, `${start}: resident at rest, MB`).toBeLessThanOrEqual(REST_GUARD_MB);
        expect(memory.peak, `${start}: peak, MB`).toBeLessThanOrEqual(PEAK_LIMIT_MB);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
