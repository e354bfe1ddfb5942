import type { CurrentSession } from './auth.port';

/** At most this many sessions are kept; the oldest entry goes first. */
const MAX_ENTRIES = 10_000;

/**
 * Sessions this process has read, kept in memory while the database's answer about them is known (issue 8: a
 * signed-in request cost a query before it could do anything).
 *
 * Exact only where this process is the database's one writer: the embedded database, whose directory is locked to one
 * process. Every write that can end a session or change its account then goes through this process, and the adapter
 * calls `forgetAll()` after each has committed. On PostgreSQL other instances write too, so there is no cache there.
 *
 * An entry lives until `until`, which the adapter sets to when the session's recorded activity becomes old enough for
 * a new write to be due: before then the session cannot be idle and no activity needs recording, so the database
 * would answer the same. A lookup that began before a `forgetAll()` does not store its (possibly stale) answer.
 */
export interface SessionCache {
  get(key: string): CurrentSession | undefined;
  /** The current generation, to pass to `set` for a lookup starting now. */
  generation(): number;
  /** Keeps `session` until `until` (ms since the epoch), unless a `forgetAll()` happened since `generation`. */
  set(key: string, session: CurrentSession, until: number, generation: number): void;
  /** Forgets every session: called after any write to sessions or accounts has committed. */
  forgetAll(): void;
}

export function createSessionCache(now: () => number = Date.now): SessionCache {
  const entries = new Map<string, { session: CurrentSession; until: number }>();
  let generation = 0;
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (now() < entry.until) return entry.session;
      entries.delete(key);
      return undefined;
    },
    generation: () => generation,
    set(key, session, until, at) {
      if (at !== generation || until <= now()) return;
      entries.delete(key);
      if (entries.size >= MAX_ENTRIES) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
      entries.set(key, { session, until });
    },
    forgetAll() {
      generation++;
      entries.clear();
    },
  };
}
