// @ts-check
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import node from '@astrojs/node';
import react from '@astrojs/react';
import { defineConfig, passthroughImageService } from 'astro/config';
import { STRIPE_SOURCES } from './src/edge/csp.ts';
import { EARLY_TAPS_SCRIPT } from './src/lib/early-taps.inline.mjs';
import { SIGNED_IN_HINT_SCRIPT } from './src/lib/signed-in-hint.inline.mjs';

// Canonical URLs, Open Graph tags and the sitemap need the public origin at build time.
const site = process.env.SITE_URL ?? `http://${process.env.HOST ?? '127.0.0.1'}:${process.env.PORT ?? '4321'}`;

/**
 * What only one page other than the product pages loads: those islands (the admin's too), and the modules only they
 * use. They stay out of the shared chunk, which every page loads. The discount rules, the form field, the list of US
 * states and the final-sale wording are read by admin pages, the order pages and the checkout (loaded on first use),
 * never by a public page's first load: in the shared chunk they cost `/` 0.7 KB gzip.
 */
const PAGE_ONLY = [
  /[\\/](CatalogueBrowser|Price|Wishlist|OrderHistory|ContactForm|ResetPasswordForm|ConfirmEmailForm)\.tsx$/,
  /[\\/](components[\\/]Field\.tsx|lib[\\/]us-states\.ts|features[\\/]catalogue[\\/]final-sale\.ts)$/,
  /[\\/]features[\\/](orders|returns|contact|admin|editor|discounts)[\\/]/,
  /[\\/]features[\\/]favorites[\\/]wishlist\./,
];

/**
 * The product pages' reviews (the list, the rating by the title, their store): every product page loads them, no
 * other page does. In a chunk of their own, `/` stops downloading them (about 0.7 KB gzip) for about 0.55 KB more on
 * the product pages, which have more room in their budget.
 */
const PRODUCT_ONLY = /[\\/]features[\\/]reviews[\\/]/;

/**
 * The browser's code in three long-lived pieces instead of some twenty small files: React, the product pages' reviews,
 * and everything else the pages load up front (islands, stores, nanostores). Small files compress badly on their own:
 * one chunk for the islands is about 5 KB gzip smaller than the same code in separate files, which keeps the product
 * pages within their 80 KB budget. Code loaded on first use (the cart drawer, the login dialog, the review form) stays in chunks of its
 * own. Only the client build is grouped; the server's bundle is left as Astro makes it.
 * @type {import('vite').Plugin}
 */
const clientChunks = {
  name: 'aurelia:client-chunks',
  configEnvironment(name) {
    if (name !== 'client') return;
    return {
      build: {
        rolldownOptions: {
          output: {
            codeSplitting: {
              groups: [
                { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/, tags: ['$initial'], priority: 3 },
                {
                  name: 'islands',
                  test: (id) => !PAGE_ONLY.some((r) => r.test(id)) && !PRODUCT_ONLY.test(id),
                  tags: ['$initial'],
                  priority: 2,
                },
                // Lower than the islands, so the modules the reviews share with other islands stay in theirs.
                { name: 'reviews', test: PRODUCT_ONLY, tags: ['$initial'], priority: 1 },
              ],
            },
          },
        },
      },
    };
  },
};

/**
 * `client:painted`, how the shop's islands hydrate: after the page's first paint, when the browser is idle, within 2 s
 * (src/lib/painted.directive.ts). Astro inlines it, hashed in the Content-Security-Policy like its own directives.
 * @type {import('astro').AstroIntegration}
 */
const paintedDirective = {
  name: 'aurelia:painted-directive',
  hooks: {
    'astro:config:setup': ({ addClientDirective }) =>
      addClientDirective({
        name: 'painted',
        entrypoint: fileURLToPath(new URL('./src/lib/painted.directive.ts', import.meta.url)),
      }),
  },
};

/**
 * Once the build is written: the SVG pictures minified and every text file worth it precompressed (brotli and gzip,
 * at their best levels) beside itself, for the edge (src/edge) to send by negotiation (scripts/precompress.mjs). Listed
 * last, so that what other integrations write as the build ends (the sitemap) is compressed too.
 * @type {import('astro').AstroIntegration}
 */
const precompressed = {
  name: 'aurelia:precompress',
  hooks: {
    'astro:build:done': async ({ dir, logger }) => {
      const { optimiseBuild } = await import('./scripts/precompress.mjs');
      logger.info(await optimiseBuild(fileURLToPath(dir)));
    },
  },
};

export default defineConfig({
  site,
  output: 'static',
  // One URL per page: /product/3, never /product/3/ (canonical links, sitemap and tests agree).
  trailingSlash: 'never',
  // scripts/serve.mjs serves the build (headers, start-up checks); endpoints read at most 16 KiB of JSON (readJson), and
  // the adapter refuses any body over 1 MiB as a backstop for code that reads one otherwise.
  // Middleware mode: the edge (src/edge, started by scripts/serve.mjs) serves the built files itself and sends /api straight to the app.
  // staticHeaders: the built pages' policy goes into dist/_headers.json, which the edge (src/edge) sends as the header,
  // instead of a <meta> in every page as well: 20 hashes that do not compress, about 0.9 KB of each document.
  adapter: node({ mode: 'middleware', bodySizeLimit: 1024 * 1024, staticHeaders: true }),
  integrations: [react(), paintedDirective, precompressed],
  // Every product picture is hand-drawn SVG: nothing to rasterise, so no sharp.
  image: { service: passthroughImageService() },
  // No code blocks in the catalogue; Shiki's inline styles would not pass the CSP anyway.
  markdown: { syntaxHighlight: false },
  build: { format: 'file', inlineStylesheets: 'always' },
  server: { host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 4321) },
  security: {
    // src/middleware.ts checks Origin itself, on every on-demand route: Astro's check would answer /api in plain text.
    checkOrigin: false,
    // A Content-Security-Policy on every page: scripts and styles only from us (inline ones by hash), nothing framed,
    // no plugins, forms and fetches to our own origin. Stripe's origins are listed for the payment step; the server's
    // header policy takes them out again unless Stripe is configured (src/edge/csp.ts).
    csp: {
      directives: [
        "default-src 'self'",
        `img-src 'self' data: ${STRIPE_SOURCES['img-src'].join(' ')}`,
        `connect-src 'self' ${STRIPE_SOURCES['connect-src'].join(' ')}`,
        `frame-src ${STRIPE_SOURCES['frame-src'].join(' ')}`,
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
      ],
      // Astro hashes the scripts it writes itself; our inline ones (BaseLayout's early taps and signed-in hint) are here.
      scriptDirective: {
        resources: ["'self'", ...STRIPE_SOURCES['script-src']],
        hashes: [EARLY_TAPS_SCRIPT, SIGNED_IN_HINT_SCRIPT].map(
          (script) => /** @type {const} */ (`sha256-${createHash('sha256').update(script).digest('base64')}`),
        ),
      },
    },
  },
  devToolbar: { enabled: false },
  vite: { plugins: [clientChunks] },
});
