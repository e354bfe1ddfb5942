// Previews of the catalogue as saved, before it is published: what the editor's buttons offer and what the preview
// pages say, in words. Pure, for the islands, the pages and their tests (the signing is preview-link.server.ts).

/** How long a preview link may work, in hours, as the editor chooses it: an hour, a day (the default), 3 days, a week. */
export const PREVIEW_LINK_HOURS = [1, 24, 72, 168] as const;
export type PreviewLinkHours = (typeof PREVIEW_LINK_HOURS)[number];
export const DEFAULT_PREVIEW_LINK_HOURS: PreviewLinkHours = 24;
/** The longest a link works: no link is honoured past it, however it was signed. */
export const MAX_PREVIEW_LINK_HOURS = Math.max(...PREVIEW_LINK_HOURS);

/** A choice of expiry in words: '1 hour', '24 hours', '3 days', '7 days'. */
export function linkHoursLabel(hours: number): string {
  if (hours === 1) return '1 hour';
  return hours < 48 ? `${hours} hours` : `${hours / 24} days`;
}

/** Where the preview of the home page is. The query parameter that carries a link's token is `link`. */
export const PREVIEW_HOME = '/preview';
export const LINK_PARAM = 'link';

/** Where the preview of product `id` is; with `token`, the address a signed link opens. */
export function previewProductHref(id: number, token?: string | null): string {
  return `/preview/product/${id}${token ? `?${LINK_PARAM}=${encodeURIComponent(token)}` : ''}`;
}

/** Where the preview of the home page is, with a link's token when it is opened by one. */
export function previewHomeHref(token?: string | null): string {
  return token ? `${PREVIEW_HOME}?${LINK_PARAM}=${encodeURIComponent(token)}` : PREVIEW_HOME;
}

/** What the preview pages say when they do not open, by why. */
export const PREVIEW_REFUSALS = {
  expired: {
    status: 410,
    title: 'This preview link has expired',
    message: (until: string) =>
      `It worked until ${until}. Previews show changes that are not published yet, so their links stop working after a while. Ask the person who sent it for a new link.`,
  },
  invalid: {
    status: 403,
    title: 'This preview link is not valid',
    message: () =>
      'Part of the link is missing or was changed. Copy the whole link again from the message it came in, or ask the person who sent it for a new one.',
  },
  otherProduct: {
    status: 403,
    title: 'This preview link is for another product',
    message: () =>
      'The link you have shows the preview of one product, and of the home page. Ask the person who sent it for a link to this product.',
  },
  revoked: {
    status: 410,
    title: 'This preview link no longer works',
    message: () =>
      'The person who made it can no longer edit the catalogue, so their links stopped working. Ask someone who edits the shop for a new link.',
  },
} as const;

/** The banner's first words on every preview page. */
export const PREVIEW_BANNER = 'Preview — not published';

/** Where a picture of a preview is sent from (with the link's token, when the preview was opened by one). */
export function previewPictureHref(name: string, token?: string | null): string {
  return `/preview/pictures/${encodeURIComponent(name)}${token ? `?${LINK_PARAM}=${encodeURIComponent(token)}` : ''}`;
}
