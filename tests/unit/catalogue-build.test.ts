import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'aurelia-catalogue-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs Astro's content sync (the build's validation step) on a copy of the project whose first product file is edited. */
function syncWith(edit: (source: string) => string) {
  for (const entry of ['astro.config.mjs', 'package.json', 'tsconfig.json', 'scripts', 'src', 'content'])
    cpSync(join(root, entry), join(work, entry), { recursive: true });
  if (!existsSync(join(work, 'node_modules'))) symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'));
  const dir = join(work, 'content/products');
  const file = readdirSync(dir)
    .filter((f) => f.endsWith('.md'))
    .sort()[0];
  if (!file) throw new Error('no product files');
  writeFileSync(join(dir, file), edit(readFileSync(join(dir, file), 'utf8')));
  const run = spawnSync(process.execPath, [join(root, 'node_modules/astro/bin/astro.mjs'), 'sync'], {
    cwd: work,
    encoding: 'utf8',
    env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' },
  });
  return { file, status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('an invalid product file', () => {
  it('fails the build with a message that names the file and the field', () => {
    const { file, status, output } = syncWith((s) => s.replace(/^price: .*$/m, 'price: thirty-five'));
    expect(status).not.toBe(0);
    expect(output).toContain(file.replace(/\.md$/, ''));
    expect(output).toMatch(/price/);
  }, 60_000);

  it('fails the build for a price edited by hand that the checkout could not charge ($0.00 once published)', () => {
    const { file, status, output } = syncWith((s) => s.replace(/^price: .*$/m, 'price: 1e-9'));
    expect(status).not.toBe(0);
    expect(output).toContain(file.replace(/\.md$/, ''));
    expect(output).toContain('price must be at least $0.01');
  }, 60_000);
});
