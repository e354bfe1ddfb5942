// A release of the catalogue (decision 018), made from the seed's files with a recorder standing for the server's
// rendering: every page a shopper may open, once for each stretch of time in which the same sales run; pictures at
// addresses named by their bytes; and a catalogue the schema refuses, refused in words naming the file and the field.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pricedAt } from '@/features/catalogue/sale';
import { seedFiles } from '@/features/editor/catalogue-files.server';
import { type CatalogueSnapshot, PublishError } from '@/features/editor/catalogue-snapshot.server';
import {
  MAX_PHASES,
  makeRelease,
  nextPhaseAt,
  pageWords,
  phaseAt,
  pictureAddress,
  type RenderPage,
  releaseKey,
} from '@/features/editor/release.server';

const root = process.cwd();
const images = join(root, 'content/products/images');
const pictures = new Map(readdirSync(images).map((name) => [name, new Uint8Array(readFileSync(join(images, name)))]));

async function snapshot(change: (scrubs: string) => string = (s) => s): Promise<CatalogueSnapshot> {
  const files = await seedFiles(root);
  files.set('03-clinical-scrubs.md', change(files.get('03-clinical-scrubs.md') ?? ''));
  const digest = createHash('sha256')
    .update(files.get('03-clinical-scrubs.md') ?? '')
    .digest('hex');
  return { files, pictures, catalogueDigest: digest };
}

/** Renders a page as the scrubs' price at the moment asked, and counts. */
function recorder() {
  const rendered: string[] = [];
  const render: RenderPage = async (path, { release, at }) => {
    rendered.push(path);
    const scrubs = release.products.find((p) => p.id === 3);
    const price = scrubs ? pricedAt(scrubs, at ?? new Date()).priceCents : 0;
    return { path, status: 200, headers: { 'content-type': 'text/html' }, body: new TextEncoder().encode(String(price)) };
  };
  return { rendered, render };
}

const text = (body: Uint8Array | undefined) => new TextDecoder().decode(body);
const now = new Date('2026-12-01T12:00:00Z');
const sale = (start: string, end: string) => (scrubs: string) =>
  scrubs.replace(/^price: 45$/m, `price: 45\nsale:\n  price: 39\n  startsAt: '${start}'\n  endsAt: '${end}'`);

describe('a release', () => {
  it('renders every page a shopper may open once, and serves pictures at addresses named by their bytes', async () => {
    const { rendered, render } = recorder();
    const release = await makeRelease(await snapshot(), { code: 'c', render, now });
    expect(rendered.sort()).toEqual(
      [
        '/',
        '/about',
        '/confirm-email',
        '/contact',
        '/reset-password',
        '/wishlist',
        '/sitemap-index.xml',
        '/sitemap-0.xml',
        ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((id) => `/product/${id}`),
      ].sort(),
    );
    expect(release.phases).toHaveLength(1);
    expect(release.catalogue.products.map((p) => p.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const scrubs = release.catalogue.products.find((p) => p.id === 3);
    const name = 'clinical-scrubs-blue.svg';
    const address = pictureAddress(name, pictures.get(name) ?? new Uint8Array());
    expect(address).toMatch(/^\/pictures\/clinical-scrubs-blue\.[0-9a-f]{12}\.svg$/);
    expect(scrubs?.images.map((i) => i.src.src)).toContain(address);
    expect(scrubs?.images[0]?.src).toMatchObject({ width: expect.any(Number), height: expect.any(Number), format: 'svg' });
    // Only the pictures the products show, each with its type.
    expect(release.pictures.map((p) => p.path)).toContain(address);
    expect(release.pictures.every((p) => p.headers['content-type'] === 'image/svg+xml')).toBe(true);
    // The key names the code and the catalogue: another of either, another release.
    expect(release.key).toBe(releaseKey('c', await snapshot()));
    expect(releaseKey('d', await snapshot())).not.toBe(release.key);
  });

  it('holds the pages of each stretch of time in which the same sales run, and says which holds when', async () => {
    const { render } = recorder();
    const start = '2026-12-05T14:00:00Z';
    const end = '2026-12-06T05:00:00Z';
    const release = await makeRelease(await snapshot(sale(start, end)), { code: 'c', render, now });
    expect(release.phases.map((p) => p.from)).toEqual([null, Date.parse(start), Date.parse(end)]);
    const scrubsAt = (iso: string) => text(phaseAt(release, new Date(iso))?.pages.find((p) => p.path === '/product/3')?.body);
    expect(scrubsAt('2026-12-05T13:59:59.999Z')).toBe('4500');
    expect(scrubsAt(start)).toBe('3900');
    expect(scrubsAt('2026-12-06T04:59:59.999Z')).toBe('3900');
    expect(scrubsAt(end)).toBe('4500');
    expect(nextPhaseAt(release, now)).toBe(Date.parse(start));
    expect(nextPhaseAt(release, new Date(start))).toBe(Date.parse(end));
    expect(nextPhaseAt(release, new Date(end))).toBeNull();
    // Made during the sale: from now (the sale), then its end.
    const during = await makeRelease(await snapshot(sale(start, end)), { code: 'c', render, now: new Date(start) });
    expect(during.phases.map((p) => p.from)).toEqual([null, Date.parse(end)]);
    expect(text(during.phases[0]?.pages.find((p) => p.path === '/product/3')?.body)).toBe('3900');
  });

  it(`renders at most ${MAX_PHASES} stretches ahead`, () => {
    expect(MAX_PHASES).toBeGreaterThanOrEqual(8);
  });

  it('refuses a catalogue the schema refuses, naming the file and the field in words, and renders nothing', async () => {
    const { rendered, render } = recorder();
    const refused = makeRelease(await snapshot((s) => s.replace(/^price: 45$/m, 'price: 29.999')), { code: 'c', render });
    await expect(refused).rejects.toBeInstanceOf(PublishError);
    await expect(refused).rejects.toThrow(
      'The catalogue cannot be published: 03-clinical-scrubs.md: price: price must have at most two decimals',
    );
    const missing = makeRelease(await snapshot((s) => s.replace(/\.\/images\/clinical-scrubs-blue\.svg/, './images/gone.svg')), {
      code: 'c',
      render,
    });
    await expect(missing).rejects.toThrow(
      /03-clinical-scrubs\.md: images\.\d+\.src: \.\/images\/gone\.svg is not a picture the shop has/,
    );
    expect(rendered).toEqual([]);
  });

  it('refuses a page the shop could not render, naming the page as an editor knows it', async () => {
    const render: RenderPage = async (path) => ({
      path,
      status: path === '/product/3' ? 500 : 200,
      headers: {},
      body: new Uint8Array(),
    });
    await expect(makeRelease(await snapshot(), { code: 'c', render })).rejects.toThrow(
      'The shop could not make the page of product 3 (it answered 500): publish again.',
    );
    expect([pageWords('/'), pageWords('/reset-password'), pageWords('/sitemap-0.xml')]).toEqual([
      'the home page',
      'the reset password page',
      'the sitemap',
    ]);
  });
});
