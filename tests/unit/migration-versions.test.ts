import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The migrator records a migration by the timestamp before the first underscore (its version) and skips a file whose
// version is recorded: two files with one version would leave the second never applied, on every database.
describe('migration files', () => {
  it('each have a version of their own', () => {
    const names = readdirSync('supabase/migrations').filter((name) => name.endsWith('.sql'));
    const versions = names.map((name) => name.split('_')[0]);
    expect(versions.every((v) => /^\d{14}$/.test(v ?? ''))).toBe(true);
    const repeated = versions.filter((v, i) => versions.indexOf(v) !== i);
    expect(repeated).toEqual([]);
  });
});
