import { describe, expect, it } from 'vitest';
import { filesToRunAgain } from '../../scripts/vitest.mjs';

// What Vitest printed in CI when V8 aborted a worker running the database suites on PGlite (trimmed).
const aborted = `
 ✓  shop  tests/db/sales-rollup.test.ts (9 tests) 10976ms
#
# Fatal error in , line 0
# Check failed: jit_page.has_value().
#
 ✓  shop  src/features/editor/pictures.test.ts (85 tests) 161ms
⎯⎯⎯⎯⎯⎯ Unhandled Error ⎯⎯⎯⎯⎯⎯⎯
Error: [vitest-pool]: Worker forks emitted error.
Caused by: Error: Worker exited unexpectedly with signal SIGTRAP during started state while running test file /tmp/ci-clone/tests/db/publish.test.ts

 Test Files  121 passed | 4 skipped (126)
      Tests  2108 passed | 7 skipped (2127)
     Errors  1 error
`;

describe('npm run test:unit (scripts/vitest.mjs)', () => {
  it('runs again only the files whose worker V8 aborted in its JIT-page bookkeeping', () => {
    expect(filesToRunAgain(aborted)).toEqual(['/tmp/ci-clone/tests/db/publish.test.ts']);
    // Vitest's colours do not hide it.
    expect(filesToRunAgain(aborted.replace('Test Files', '\u001b[2m Test Files \u001b[22m'))).toHaveLength(1);
  });

  it('runs nothing again when a test failed too, or a worker died of anything else', () => {
    expect(filesToRunAgain(aborted.replace('Tests  2108 passed', 'Tests  1 failed | 2107 passed'))).toEqual([]);
    expect(filesToRunAgain(aborted.replace('Test Files  121 passed', 'Test Files  1 failed | 120 passed'))).toEqual([]);
    expect(filesToRunAgain(aborted.replace('Check failed: jit_page.has_value().', 'JavaScript heap out of memory'))).toEqual([]);
    expect(filesToRunAgain(' Test Files  3 passed (3)\n')).toEqual([]);
  });
});
