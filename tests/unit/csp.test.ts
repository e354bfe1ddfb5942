import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PICTURE_POLICY, policyForPage, STRIPE_SOURCES, withoutStripe } from '../../src/edge/csp.ts';
import { builtPolicies, fitPolicy, policyFromPages, withSecurityHeaders } from '../../src/edge/security-headers.ts';
import { PICTURE_HEADERS } from '../../src/features/editor/pictures';

const page = (policy: string) => `<html><head><meta http-equiv="content-security-policy" content="${policy}"></head></html>`;
const built = page(
  "default-src 'self'; img-src 'self' data: https://*.stripe.com; connect-src 'self' https://api.stripe.com; " +
    'frame-src https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com; ' +
    "script-src 'self' https://js.stripe.com https://*.js.stripe.com 'sha256-abc'",
);

/** The CSP header a wrapped handler sends, for a handler that sets none and for one that sends its own. */
function sent(options: { stripe: boolean }, own?: string): string {
  const headers = new Map<string, unknown>();
  const res = {
    setHeader: (name: string, value: unknown) => headers.set(name, value),
    getHeader: (name: string) => headers.get(name),
    writeHead(_status: number, extra?: Record<string, string>) {
      if (extra) for (const [name, value] of Object.entries(extra)) headers.set(name, value);
      return this;
    },
  };
  const handler = withSecurityHeaders(
    (_req: IncomingMessage, r: ServerResponse) => {
      r.writeHead(200, own ? { 'content-security-policy': own } : {});
    },
    { policy: policyFromPages([built]), https: false, ...options },
  );
  handler({} as IncomingMessage, res as unknown as ServerResponse);
  return String(headers.get('content-security-policy'));
}

describe('Stripe in the Content-Security-Policy', () => {
  it('takes every Stripe source out, keeping the rest of each directive', () => {
    expect(withoutStripe(built.match(/content="([^"]*)"/)?.[1] ?? '')).toBe(
      "default-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; script-src 'self' 'sha256-abc'",
    );
  });

  it('is allowed in the header only when the server runs with Stripe', () => {
    const without = sent({ stripe: false });
    expect(without).not.toContain('stripe.com');
    expect(without).toContain("script-src 'self' 'sha256-abc'");
    expect(without).toContain("frame-ancestors 'none'");
    const withStripe = sent({ stripe: true });
    for (const [directive, sources] of Object.entries(STRIPE_SOURCES)) {
      const line = withStripe.split('; ').find((d) => d.startsWith(`${directive} `)) ?? '';
      for (const source of sources) expect(line, directive).toContain(source);
    }
  });

  it('also leaves Stripe out of the policy Astro sends for on-demand pages', () => {
    const own = "default-src 'self'; script-src 'self' https://js.stripe.com 'sha256-def'";
    expect(sent({ stripe: false }, own)).toBe("default-src 'self'; script-src 'self' 'sha256-def'; frame-ancestors 'none'");
    expect(sent({ stripe: true }, own)).toBe(`${own}; frame-ancestors 'none'`);
  });
});

/** Every header a wrapped handler's answer carries, for an answer of `type` (none when undefined) and `status`. */
function answerHeaders(type: string | undefined, { status = 200, https = false, viaWriteHead = true } = {}) {
  const headers = new Map<string, unknown>();
  const res = {
    setHeader: (name: string, value: unknown) => headers.set(name.toLowerCase(), value),
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    writeHead(_status: number, extra?: Record<string, string>) {
      if (extra) for (const [name, value] of Object.entries(extra)) headers.set(name.toLowerCase(), value);
      return this;
    },
  };
  const handler = withSecurityHeaders(
    (_req: IncomingMessage, r: ServerResponse) => {
      // Astro gives every header to writeHead; `send` sets them first, then writes the head.
      if (viaWriteHead) r.writeHead(status, type ? { 'Content-Type': type } : {});
      else {
        if (type) r.setHeader('content-type', type);
        r.writeHead(status);
      }
    },
    { policy: policyFromPages([built]), https },
  );
  handler({} as IncomingMessage, res as unknown as ServerResponse);
  return headers;
}

const DOCUMENT_ONLY = ['content-security-policy', 'x-frame-options', 'referrer-policy', 'cross-origin-opener-policy'];

describe('which answers carry which headers', () => {
  it.each([
    ['text/html; charset=utf-8', 200],
    ['text/html', 404],
    ['TEXT/HTML;charset=UTF-8', 500],
    ['application/xhtml+xml', 200],
    [undefined, 400],
    [undefined, 301],
  ])('a document (%s, %i) gets the CSP forbidding framing, X-Frame-Options, Referrer-Policy and COOP', (type, status) => {
    for (const viaWriteHead of [true, false]) {
      const headers = answerHeaders(type, { status, viaWriteHead });
      expect(headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(headers.get('x-frame-options')).toBe('DENY');
      expect(headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
      expect(headers.get('cross-origin-opener-policy')).toBe('same-origin');
      expect(headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it.each([
    ['application/json; charset=utf-8', 200],
    ['application/json; charset=utf-8', 404],
    ['text/javascript; charset=utf-8', 200],
    ['text/css; charset=utf-8', 200],
    ['application/pdf', 200],
    ['text/html; charset=utf-8', 304],
    [undefined, 204],
  ])('%s (%i) is no document: nosniff, and none of the document headers', (type, status) => {
    for (const viaWriteHead of [true, false]) {
      const headers = answerHeaders(type, { status, viaWriteHead });
      expect(headers.get('x-content-type-options')).toBe('nosniff');
      for (const name of DOCUMENT_ONLY) expect(headers.has(name), name).toBe(false);
    }
  });

  // An SVG opened on its own is a document on the shop's origin: whatever serves it, nothing in it may run or load.
  it.each([
    ['image/svg+xml', 200],
    ['image/svg+xml; charset=utf-8', 200],
    ['IMAGE/SVG+XML', 206],
    ['image/png', 200],
    ['image/jpeg', 200],
    ['image/webp', 200],
    ['image/avif', 200],
    ['image/gif', 200],
    ['image/x-icon', 200],
    ['application/xml', 200],
    ['text/xml; charset=utf-8', 200],
    ['application/rss+xml', 200],
  ])('%s (%i) is a picture: nosniff, the policy under which nothing runs or loads, no document headers', (type, status) => {
    for (const viaWriteHead of [true, false]) {
      const headers = answerHeaders(type, { status, viaWriteHead });
      expect(headers.get('x-content-type-options')).toBe('nosniff');
      expect(headers.get('content-security-policy')).toBe(PICTURE_POLICY);
      for (const name of DOCUMENT_ONLY.filter((n) => n !== 'content-security-policy'))
        expect(headers.has(name), name).toBe(false);
    }
  });

  it('the policy for pictures runs nothing, loads nothing (data: included), sandboxes, and keeps inline styles', () => {
    const directives = new Map(
      PICTURE_POLICY.split(';').map((d) => {
        const [name = '', ...sources] = d.trim().split(/\s+/);
        return [name, sources] as const;
      }),
    );
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('style-src')).toEqual(["'unsafe-inline'"]);
    expect(directives.get('sandbox')).toEqual([]);
    expect([...directives.keys()].sort()).toEqual(['default-src', 'sandbox', 'style-src']);
    // The editors' previews send the same policy (src/features/editor/pictures.ts cannot import a script of the server).
    expect(PICTURE_HEADERS['content-security-policy']).toBe(PICTURE_POLICY);
    expect(PICTURE_HEADERS['x-content-type-options']).toBe('nosniff');
  });

  it('a picture keeps no weaker policy of its own', () => {
    const headers = new Map<string, unknown>();
    const res = {
      setHeader: (name: string, value: unknown) => headers.set(name.toLowerCase(), value),
      getHeader: (name: string) => headers.get(name.toLowerCase()),
      writeHead(_status: number, extra?: Record<string, string>) {
        if (extra) for (const [name, value] of Object.entries(extra)) headers.set(name.toLowerCase(), value);
        return this;
      },
    };
    const handler = withSecurityHeaders(
      (_req: IncomingMessage, r: ServerResponse) => {
        r.writeHead(200, { 'Content-Type': 'image/svg+xml', 'Content-Security-Policy': "script-src 'unsafe-inline'" });
      },
      { policy: policyFromPages([built]), https: false },
    );
    handler({} as IncomingMessage, res as unknown as ServerResponse);
    expect(headers.get('content-security-policy')).toBe(PICTURE_POLICY);
  });

  it('HSTS is on every answer when the shop is on https, documents or not', () => {
    for (const type of ['text/html', 'application/json', 'text/javascript'])
      expect(answerHeaders(type, { https: true }).get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    expect(answerHeaders('text/html').has('strict-transport-security')).toBe(false);
  });
});

describe('the built pages’ policy, from the file the adapter writes', () => {
  it('reads every page’s policy from _headers.json, merges their hashes, and forbids framing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'csp-'));
    try {
      writeFileSync(
        join(dir, '_headers.json'),
        JSON.stringify([
          {
            pathname: '/',
            headers: [{ key: 'Content-Security-Policy', value: "default-src 'self';script-src 'self' 'sha256-a'" }],
          },
          { pathname: '/about', headers: [{ key: 'Content-Security-Policy', value: "script-src 'self' 'sha256-b'" }] },
          { pathname: '/x', headers: [{ key: 'X-Other', value: 'not a policy' }] },
        ]),
      );
      const written = builtPolicies(dir);
      expect(written).toHaveLength(2);
      expect(policyFromPages([], written)).toBe(
        "default-src 'self'; script-src 'self' 'sha256-a' 'sha256-b'; frame-ancestors 'none'",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds none in a build without the file', () => {
    expect(builtPolicies(join(tmpdir(), 'no-such-build'))).toEqual([]);
  });
});

describe('an on-demand page’s policy fitted to the page', () => {
  const sha = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
  const script = 'window.a = 1;';
  const style = 'p{color:red}';
  const other = 'window.b = 2;';
  const policy = `default-src 'self'; script-src 'self' https://js.stripe.com ${sha(script)} ${sha(other)} 'sha384-keep'; style-src 'self' ${sha(style)} ${sha('q{}')}; frame-ancestors 'none'`;

  it('keeps the hashes of the inline scripts and styles the page holds, and every other source', () => {
    const html = `<!DOCTYPE html><head><style>${style}</style><script>${script}</script><script type="module" src="/_astro/x.js"></script></head>`;
    expect(policyForPage(policy, html)).toBe(
      `default-src 'self'; script-src 'self' https://js.stripe.com ${sha(script)} 'sha384-keep'; style-src 'self' ${sha(style)}; frame-ancestors 'none'`,
    );
  });

  it('allows nothing new: a script in the page whose hash the policy lacks stays without one', () => {
    const fitted = policyForPage(policy, `<script>${'window.evil = 1;'}</script><script>${script}</script>`);
    expect(fitted).not.toContain(sha('window.evil = 1;'));
    expect(fitted).toContain(sha(script));
    expect(fitted).not.toContain(sha(style));
  });

  it('reads tags with attributes, not other elements; a policy without hashes stays as it is', () => {
    expect(policyForPage(policy, `<script type="text/javascript">${other}</script >`)).toContain(sha(other));
    expect(policyForPage(policy, `<scripts>${other}</scripts>`)).not.toContain(sha(other));
    // Astro and React write tags in lower case; one in upper case loses its hash, which allows nothing more.
    expect(policyForPage(policy, `<SCRIPT>${other}</SCRIPT>`)).not.toContain(sha(other));
    expect(policyForPage("default-src 'self'", `<script>${script}</script>`)).toBe("default-src 'self'");
  });

  it('hashes the bytes as sent, multi-byte characters included, and the same bytes again from memory', () => {
    const text = 'document.title = "Crème · 3 × Soap";';
    for (let i = 0; i < 2; i++)
      expect(policyForPage(`script-src ${sha(text)} ${sha(other)}`, Buffer.from(`<script>${text}</script>`))).toBe(
        `script-src ${sha(text)}`,
      );
  });

  it('fits the header of an HTML answer, and of nothing else', () => {
    const answer = (type: string) => {
      const headers = new Map<string, unknown>([
        ['content-type', type],
        ['content-security-policy', policy],
      ]);
      const res = {
        getHeader: (name: string) => headers.get(name),
        setHeader: (name: string, value: unknown) => headers.set(name, value),
      } as unknown as ServerResponse;
      fitPolicy(res, Buffer.from(`<script>${script}</script>`));
      return String(headers.get('content-security-policy'));
    };
    expect(answer('text/html; charset=utf-8')).not.toContain(sha(other));
    expect(answer('application/json')).toBe(policy);
  });
});
