import type { CurrentSession } from './auth.port';

/** At most this many sessions are kept; the oldest entry goes first. */
const MAX_ENTRIES = 10_000;

/**
 * Sessions this process has read, kept in memory while the database's answer about them is known (without it, a
 * signed-in request cost a query before it could do anything).
 *
 * Every write that can end a session or change its account calls `forgetAll()` once it has committed: in this process
 * the adapter does, after each of its writes. On the embedded database, whose directory is locked to one process, that
 * is every write. On PostgreSQL other processes write too: the database notifies every server of a change to sessions
 * or accounts (a trigger; migration 20261126090000), and the cache is paused (nothing kept, nothing answered) whenever
 * those notifications are not known to arrive (see Database.watch).
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
  /** Forgets every session and keeps none until `resume()`: writes by others may go unseen meanwhile. */
  pause(): void;
  /** Keeps sessions again (read from now on: the generation moves on, so no lookup begun before is kept). */
  resume(): void;
}

export function createSessionCache(now: () => number = Date.now): SessionCache {
  const entries = new Map<string, { session: CurrentSession; until: number }>();
  let generation = 0;
  let paused = false;
  const forgetAll = () => {
    generation++;
    entries.clear();
  };
  return {
    get(key) {
      if (paused) return undefined;
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (now() < entry.until) return entry.session;
      entries.delete(key);
      return undefined;
    },
    generation: () => generation,
    set(key, session, until, at) {
      if (paused || at !== generation || until <= now()) return;
      entries.delete(key);
      if (entries.size >= MAX_ENTRIES) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
      entries.set(key, { session, until });
    },
    forgetAll,
    pause() {
      paused = true;
      forgetAll();
    },
    resume() {
      forgetAll();
      paused = false;
    },
  };
}
