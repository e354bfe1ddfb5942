// @ts-check
// The content editor: the shop's own site on Astro's dev server (so a product page shows a saved change at once), with
// Keystatic's admin UI at /keystatic writing content/products/*.md. A separate config: `npm run build` uses
// ../astro.config.mjs, which knows nothing of the editor, so none of its code reaches the shop's pages.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mergeConfig } from 'astro/config';
import shop from '../astro.config.mjs';

const here = (/** @type {string} */ path) => fileURLToPath(new URL(path, import.meta.url));
const routes = here('./routes.ts');

/** @type {import('astro').AstroIntegration} */
const editor = {
  name: 'aurelia:catalogue-editor',
  hooks: {
    'astro:config:setup': ({ injectRoute, addMiddleware, updateConfig }) => {
      updateConfig({
        vite: {
          plugins: [
            {
              name: 'aurelia:keystatic-config',
              resolveId: (id) => (id === 'virtual:keystatic-config' ? here('./keystatic.config.tsx') : null),
            },
          ],
          // Its own cache (not node_modules/.vite), so an editor on a copy of the project does not share the shop's.
          cacheDir: '.astro/editor-vite',
          // The project and its packages, also where node_modules is a link to another checkout's (the end-to-end test
          // runs the editor on a copy of the project).
          server: { fs: { allow: [here('..'), realpathSync(here('../node_modules'))] } },
          // Pre-bundled up front: otherwise Vite finds them on the first visit and reloads the page half-way.
          optimizeDeps: { include: ['@keystatic/core', '@keystatic/core/ui', '@keystatic/astro/ui'] },
        },
      });
      injectRoute({
        pattern: '/keystatic/[...params]',
        entrypoint: '@keystatic/astro/internal/keystatic-astro-page.astro',
        prerender: false,
      });
      injectRoute({ pattern: '/api/keystatic/[...params]', entrypoint: routes, prerender: false });
      injectRoute({ pattern: '/editor/preview/[slug]', entrypoint: routes, prerender: false });
      addMiddleware({ entrypoint: here('./middleware.ts'), order: 'pre' });
    },
  },
};

const port = Number(process.env.EDITOR_PORT ?? 4330);

// The shop's configuration with the editor added (mergeConfig appends to its list of integrations).
export default mergeConfig(shop, {
  site: `http://127.0.0.1:${port}`,
  integrations: [editor],
  server: { host: '127.0.0.1', port },
  // Keystatic's UI styles itself inline; the shop's CSP is for the shop's built pages.
  security: { csp: false },
});
