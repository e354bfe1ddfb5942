// @ts-check
import node from '@astrojs/node';
import react from '@astrojs/react';
import sitemap from '@astrojs/sitemap';
import { defineConfig, passthroughImageService } from 'astro/config';

// Canonical URLs, Open Graph tags and the sitemap need the public origin at build time.
const site = process.env.SITE_URL ?? `http://${process.env.HOST ?? '127.0.0.1'}:${process.env.PORT ?? '4321'}`;

// Pages that only make sense for a signed-in shopper stay out of the sitemap.
const PRIVATE_PAGES = ['/wishlist', '/orders'];

export default defineConfig({
  site,
  output: 'static',
  // One URL per page: /product/3, never /product/3/ (canonical links, sitemap and tests agree).
  trailingSlash: 'never',
  adapter: node({ mode: 'standalone' }),
  integrations: [react(), sitemap({ filter: (page) => !PRIVATE_PAGES.some((p) => new URL(page).pathname.startsWith(p)) })],
  // Every product picture is hand-drawn SVG: nothing to rasterise, so no sharp.
  image: { service: passthroughImageService() },
  // No code blocks in the catalogue; Shiki's inline styles would not pass the CSP anyway.
  markdown: { syntaxHighlight: false },
  build: { format: 'file', inlineStylesheets: 'always' },
  server: { host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 4321) },
  security: {
    checkOrigin: true,
    // A Content-Security-Policy on every page: scripts and styles only from us (inline ones by hash), nothing framed,
    // no plugins, forms and fetches to our own origin.
    csp: {
      directives: [
        "default-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
      ],
    },
  },
  devToolbar: { enabled: false },
});
