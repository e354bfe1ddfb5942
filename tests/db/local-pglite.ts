import type { PGlite } from '@electric-sql/pglite';
import type { Database } from '@/server/db/database.server';
import { fromEngine } from '@/server/db/pglite.server';
import { engineOf, MAX_PREPARED } from '@/server/db/pglite-engine';

/**
 * A PGlite the test opened itself, as a Database, its engine in the test's own thread (the server's runs in a worker,
 * openPglite): so a test can watch the engine's calls. At most `maxPrepared` statement texts are kept prepared.
 */
export function fromPglite(pg: PGlite, release: () => void = () => {}, maxPrepared = MAX_PREPARED): Database {
  return fromEngine(engineOf(pg, maxPrepared), release);
}
