import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkPreviewLink, type PreviewGrant, signPreviewLink } from './preview-link.server';

// A preview link is a product, an expiry and who made it, signed with the shop's preview key: the link alone opens that
// product's preview until it expires, and nothing about it can be changed without the key.

const secret = randomBytes(32);
const now = new Date('2026-12-07T14:00:00Z');
const grant: PreviewGrant = {
  productId: 6,
  expiresAt: new Date('2026-12-08T14:00:00Z'),
  by: '8d0c5a52-6a3e-4d8e-9a4f-2f3b7c1d9e01',
};
const token = signPreviewLink(grant, secret);
const invalid = { ok: false, reason: 'invalid' };

/** The token with one of its four parts replaced. */
function withPart(index: number, value: string): string {
  const parts = token.split('.');
  parts[index] = value;
  return parts.join('.');
}

describe('preview links', () => {
  it('open the product they were made for until they expire, and say which product, until when and who made them', () => {
    expect(checkPreviewLink(token, secret, now)).toEqual({ ok: true, grant });
    expect(checkPreviewLink(token, secret, new Date(grant.expiresAt.getTime() - 1000))).toEqual({ ok: true, grant });
  });

  it('are refused as expired from the second they expire (and only when their signature holds)', () => {
    expect(checkPreviewLink(token, secret, grant.expiresAt)).toEqual({
      ok: false,
      reason: 'expired',
      expiredAt: grant.expiresAt,
    });
    expect(checkPreviewLink(token, secret, new Date('2027-06-01T00:00:00Z'))).toMatchObject({ reason: 'expired' });
    // A later expiry written over an expired link's own is a tampered link, not an expired one.
    const later = withPart(1, String(Math.floor(new Date('2027-06-02T00:00:00Z').getTime() / 1000)));
    expect(checkPreviewLink(later, secret, new Date('2027-06-01T00:00:00Z'))).toEqual(invalid);
  });

  it('are refused when their product, expiry, maker or signature is changed', () => {
    expect(checkPreviewLink(withPart(0, '3'), secret, now)).toEqual(invalid);
    expect(checkPreviewLink(withPart(0, '06'), secret, now)).toEqual(invalid);
    expect(checkPreviewLink(withPart(1, String(Math.floor(grant.expiresAt.getTime() / 1000) + 3600)), secret, now)).toEqual(
      invalid,
    );
    expect(checkPreviewLink(withPart(2, '00000000-0000-4000-8000-000000000000'), secret, now)).toEqual(invalid);
    const signature = token.split('.')[3] ?? '';
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    expect(checkPreviewLink(withPart(3, flipped), secret, now)).toEqual(invalid);
    expect(checkPreviewLink(withPart(3, signature.slice(0, 20)), secret, now)).toEqual(invalid);
  });

  it('are refused when signed with another key (another shop, or the key was replaced)', () => {
    expect(checkPreviewLink(token, randomBytes(32), now)).toEqual(invalid);
    expect(checkPreviewLink(signPreviewLink(grant, randomBytes(32)), secret, now)).toEqual(invalid);
  });

  it('are refused when malformed, whatever is sent', () => {
    for (const sent of ['', '.', token.slice(0, -1), `${token}.`, `${token}x`, token.replace(/\./g, '-'), 'a'.repeat(5000)])
      expect(checkPreviewLink(sent, secret, now), sent.slice(0, 40)).toEqual(invalid);
    expect(checkPreviewLink(`${token.slice(0, 4)}\u0000${token.slice(5)}`, secret, now)).toEqual(invalid);
  });

  it('never last longer than the longest expiry an editor may choose, even when signed so', () => {
    const tooLong = { ...grant, expiresAt: new Date(now.getTime() + 8 * 24 * 3600_000) };
    expect(checkPreviewLink(signPreviewLink(tooLong, secret), secret, now)).toEqual(invalid);
    const week = { ...grant, expiresAt: new Date(now.getTime() + 7 * 24 * 3600_000) };
    expect(checkPreviewLink(signPreviewLink(week, secret), secret, now)).toEqual({ ok: true, grant: week });
  });

  it('are made only with a key long enough to be one, for a real product and a whole second', () => {
    expect(() => signPreviewLink(grant, randomBytes(16))).toThrow(/key/);
    expect(() => signPreviewLink({ ...grant, productId: 0 }, secret)).toThrow(/product/);
    expect(() => signPreviewLink({ ...grant, by: 'someone' }, secret)).toThrow(/account/);
    // An expiry is kept to the second: what the link says is what it is checked against.
    const odd = signPreviewLink({ ...grant, expiresAt: new Date(grant.expiresAt.getTime() + 999) }, secret);
    expect(checkPreviewLink(odd, secret, now)).toEqual({ ok: true, grant });
  });
});
