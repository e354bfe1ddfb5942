import type { APIContext } from 'astro';
import { describe, expect, it } from 'vitest';
import { PICTURE_POLICY } from '../src/edge/csp.ts';
import { keystaticApi } from './api';

const get = (path: string) => {
  const url = new URL(`http://127.0.0.1:4321${path}`);
  return keystaticApi({ request: new Request(url), url } as unknown as APIContext);
};

describe('the developers’ editor’s picture previews', () => {
  it('are served as the shop serves every picture: nothing in them runs or loads, never sniffed', async () => {
    const res = await get('/api/keystatic/editor-image/clinical-scrubs.svg');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(res.headers.get('content-security-policy')).toBe(PICTURE_POLICY);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await get('/api/keystatic/editor-image/..%2Fpackage.json')).status).toBe(404);
  });
});
