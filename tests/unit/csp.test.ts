import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { STRIPE_SOURCES, withoutStripe } from '../../scripts/csp.mjs';
import { policyFromPages, withSecurityHeaders } from '../../scripts/serve.mjs';

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
