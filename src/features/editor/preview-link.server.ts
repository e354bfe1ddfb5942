// Signed preview links (decision 014): a product, an expiry and the account that made the link, with an HMAC-SHA256 of
// the three under the shop's preview key. The link alone opens that product's preview (and the home page's) until it
// expires; whoever holds it has no account, so nothing else is open to it. The key is made once, kept in the database
// (app_private.shop_secrets: every server of the shop checks a link the same way), and never leaves the server.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Database } from '@/server/db/database.server';
import { serviceStatement } from '@/server/db/roles.server';
import { MAX_PREVIEW_LINK_HOURS } from './preview';

/** What a preview link grants. */
export interface PreviewGrant {
  productId: number;
  /** Kept to the second. */
  expiresAt: Date;
  /** The account that made it: the link works only while it may edit the catalogue. */
  by: string;
}

export type LinkCheck =
  | { ok: true; grant: PreviewGrant }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'expired'; expiredAt: Date };

/** `<product>.<expiry, seconds since 1970>.<account>.<signature, base64url>`. */
const TOKEN = /^([1-9]\d{0,8})\.(\d{10})\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/;
const ACCOUNT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A clock a little ahead of the one that signed is not a reason to refuse a link it made at the longest expiry. */
const CLOCK_SKEW_MS = 5 * 60_000;

function signature(productId: number, expires: number, by: string, secret: Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`aurelia-preview-link 1\n${productId}\n${expires}\n${by}`).digest();
}

/** The token of a link granting `grant`, signed with `secret` (32 bytes or more). */
export function signPreviewLink(grant: PreviewGrant, secret: Uint8Array): string {
  if (secret.length < 32) throw new Error('a preview key is at least 32 bytes');
  if (!Number.isInteger(grant.productId) || grant.productId < 1 || grant.productId > 999_999_999)
    throw new Error(`not a product id: ${grant.productId}`);
  if (!ACCOUNT.test(grant.by)) throw new Error('a preview link names the account that made it');
  const expires = Math.floor(grant.expiresAt.getTime() / 1000);
  const sig = signature(grant.productId, expires, grant.by, secret).toString('base64url');
  return `${grant.productId}.${expires}.${grant.by}.${sig}`;
}

/**
 * What link `token` grants at `now`: refused as `invalid` when it is not one this key signed (any part changed, cut
 * short, another key) or when it would last longer than an editor may choose; as `expired` when it was, but no longer
 * is. The signature is checked first, so a changed expiry is never taken for a real one.
 */
export function checkPreviewLink(token: string, secret: Uint8Array, now = new Date()): LinkCheck {
  const match = TOKEN.exec(token);
  if (!match) return { ok: false, reason: 'invalid' };
  const [, product = '', seconds = '', by = '', sig = ''] = match;
  const productId = Number(product);
  const expires = Number(seconds);
  const expected = signature(productId, expires, by, secret);
  const given = Buffer.from(sig, 'base64url');
  // base64url of 32 bytes, and back: a signature with other bits in its last character is another text, refused.
  if (given.length !== expected.length || given.toString('base64url') !== sig || !timingSafeEqual(given, expected))
    return { ok: false, reason: 'invalid' };
  const expiresAt = new Date(expires * 1000);
  if (expiresAt.getTime() - now.getTime() > MAX_PREVIEW_LINK_HOURS * 3600_000 + CLOCK_SKEW_MS)
    return { ok: false, reason: 'invalid' };
  if (now.getTime() >= expiresAt.getTime()) return { ok: false, reason: 'expired', expiredAt: expiresAt };
  return { ok: true, grant: { productId, expiresAt, by } };
}

const KEY_NAME = 'preview-links';

/**
 * The shop's preview key: made at its first use (by whichever server asks first; the others read that one), then read
 * from the database at every use, so that replacing it (deleting its row) ends every link at once, on every server.
 */
export async function previewKey(db: Database): Promise<Buffer> {
  const read = async () =>
    (
      await serviceStatement<{ secret: Uint8Array }>(db, 'select secret from app_private.shop_secrets where name = $1', [
        KEY_NAME,
      ])
    )[0];
  let row = await read();
  if (!row) {
    await serviceStatement(
      db,
      'insert into app_private.shop_secrets (name, secret) values ($1, $2) on conflict (name) do nothing',
      [KEY_NAME, randomBytes(32)],
    );
    row = await read();
  }
  if (!row) throw new Error('the preview key could not be stored');
  return Buffer.from(row.secret);
}
