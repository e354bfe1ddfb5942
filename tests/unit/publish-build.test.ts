// The publish's build, for real: `astro build` of the catalogue as saved, into a directory of its own. One that the
// build refuses says why in the build's own words; one that succeeds is found again instead of built twice.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { seedFiles } from '@/features/editor/catalogue-files.server';
import { buildShop, type CatalogueSnapshot, PublishError } from '@/features/editor/publish-build.server';

const root = process.cwd();
mkdirSync(join(root, '.builds'), { recursive: true });
const buildsDir = mkdtempSync(join(root, '.builds', 'unit-'));
afterAll(() => rmSync(buildsDir, { recursive: true, force: true }));

async function snapshot(price: string): Promise<CatalogueSnapshot> {
  const files = await seedFiles(root);
  const scrubs = files.get('03-clinical-scrubs.md') ?? '';
  files.set('03-clinical-scrubs.md', scrubs.replace(/^price: 45$/m, `price: ${price}`));
  const images = join(root, 'content/products/images');
  const pictures = new Map(readdirSync(images).map((name) => [name, new Uint8Array(readFileSync(join(images, name)))]));
  return { files, pictures, digest: createHash('sha256').update(price).digest('hex') };
}

const options = { root, buildsDir, code: 'unit-test', signal: new AbortController().signal };

describe('building a publish', () => {
  it('refuses a catalogue the build refuses, with the build’s reason, and leaves nothing behind', {
    timeout: 120_000,
  }, async () => {
    const refused = buildShop(await snapshot('29.999'), options);
    await expect(refused).rejects.toBeInstanceOf(PublishError);
    await expect(refused).rejects.toThrow(
      'The build failed: products → 03-clinical-scrubs data does not match collection schema. price: price must have at most two decimals',
    );
    expect(readdirSync(buildsDir)).toEqual([]);
  });

  it('builds the catalogue as saved into a directory of its own, and finds that build again', { timeout: 120_000 }, async () => {
    const built = await buildShop(await snapshot('46.5'), options);
    expect(built.reused).toBe(false);
    expect(existsSync(join(built.dir, 'out/server/entry.mjs'))).toBe(true);
    expect(readFileSync(join(built.dir, 'out/client/product/3.html'), 'utf8')).toContain('$46.50');
    expect(readFileSync(join(built.dir, 'out/client/sitemap-0.xml'), 'utf8')).toContain('/product/3');
    const again = await buildShop(await snapshot('46.5'), options);
    expect(again).toMatchObject({ dir: built.dir, reused: true });
  });
});
