import { describe, expect, it } from 'vitest';
import { reconnectBackoff } from '@/server/db/postgres.server';

describe('reconnecting to PostgreSQL', () => {
  it('waits at most a second between tries, however long the database was gone', () => {
    // The driver's own wait reaches 20 s after eight failed tries: a shop would answer 503 that long after a restart.
    for (let retries = 0; retries <= 40; retries++) {
      for (let n = 0; n < 20; n++) expect(reconnectBackoff(retries)).toBeLessThanOrEqual(1);
    }
  });

  it('tries again quickly at first', () => {
    expect(reconnectBackoff(1)).toBeLessThanOrEqual(0.03);
  });
});
