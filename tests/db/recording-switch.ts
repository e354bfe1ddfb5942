// A server's release switch for the publishing suites: each page it renders for the publisher says the price of
// product 3 (the scrubs) at the moment the page is rendered for, and each switch records that price and when it came.
import { pricedAt } from '@/features/catalogue/sale';
import type { CatalogueInUse } from '@/features/catalogue/served-catalogue.server';
import type { ReleaseSwitch } from '@/features/editor/publish.server';
import type { ReleaseFile } from '@/features/editor/release.server';

export interface RecordingSwitch extends ReleaseSwitch {
  /** Each switch: the scrubs' price its page showed, in cents, and when (ms since the epoch) it was served. */
  switches: { price: number; at: number }[];
  /** The prices served, in the order served. */
  prices(): number[];
  /** The files of the last switch. */
  files: ReleaseFile[];
  /** How many pages were rendered. */
  renders: number;
}

export function recordingSwitch(): RecordingSwitch {
  const served: RecordingSwitch = {
    switches: [],
    files: [],
    renders: 0,
    prices: () => served.switches.map((s) => s.price),
    async render(path, locals) {
      const { release, at } = locals.catalogueRender as CatalogueInUse;
      served.renders++;
      const scrubs = release.products.find((p) => p.id === 3);
      const price = scrubs ? pricedAt(scrubs, at ?? new Date()).priceCents : 0;
      return { path, status: 200, headers: { 'content-type': 'text/html' }, body: new TextEncoder().encode(String(price)) };
    },
    async prepare(files) {
      const page = files.find((f) => f.path === '/product/3');
      return () => {
        served.files = [...files];
        served.switches.push({ price: Number(new TextDecoder().decode(page?.body)), at: Date.now() });
      };
    },
  };
  return served;
}
