import { createHash, randomBytes } from 'node:crypto';

/** A random secret for a cookie or an e-mailed link (256 bits, base64url). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What the database keeps of a token: its SHA-256, so a leaked table holds no usable session or link. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
