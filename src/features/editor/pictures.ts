// Pictures editors upload: limited in size, one of four types known by their bytes (never by the file's name), stored
// under a name carrying a digest of them. An SVG is a document that can run script and load from other servers, so one
// that carries script, event handlers, embedded HTML or a reference to anything but its own #fragments is refused
// (not cleaned: a cleaned drawing would not be the one the editor meant, and a refusal says what to fix).
import { createHash } from 'node:crypto';

/** The largest picture an editor may upload: 1 MB (the server reads no more of the request). */
export const MAX_PICTURE_BYTES = 1_000_000;

export type PictureType = 'svg' | 'png' | 'jpg' | 'webp';

/** The content type each stored picture is served with (the editor's preview). */
export const PICTURE_CONTENT_TYPES: Record<string, string> = {
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  avif: 'image/avif',
  gif: 'image/gif',
};

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0) => prefix.every((b, i) => bytes[at + i] === b);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** An SVG's text, or null when the bytes are not UTF-8 text whose first element is <svg>. */
function svgText(bytes: Uint8Array): string | null {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
  if (text.includes('\u0000')) return null;
  // Before the root element: a BOM, white space, the XML declaration and other instructions, comments, a DOCTYPE.
  const prolog = /^\uFEFF?(?:\s+|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE(?:[^[>]|\[[\s\S]*?\])*>)*/i.exec(text)?.[0] ?? '';
  return /^<svg[\s>/]/i.test(text.slice(prolog.length)) ? text : null;
}

/** What the bytes are: SVG, PNG, JPEG or WebP, or null for anything else. */
export function pictureType(bytes: Uint8Array): PictureType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpg';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'webp';
  return svgText(bytes) === null ? null : 'svg';
}

/** Elements an SVG picture must not hold: they run script or show another document. */
const FORBIDDEN_ELEMENTS = /<\s*(?:[\w-]+:)?(script|foreignObject|iframe|embed|object|handler|listener)\b/i;
/** An attribute whose name ends in `href` (href, xlink:href), and its value. */
const HREF = /(?:^|[\s"'])(?:[\w-]+:)?href\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/gi;
const URL_FUNCTION = /url\(\s*(["']?)\s*([^"')\s]*)/gi;

/** Why this SVG must not reach the shop, in words, or null when it references nothing but itself and runs nothing. */
export function svgProblem(text: string): string | null {
  const element = FORBIDDEN_ELEMENTS.exec(text);
  if (element) return `This SVG contains a <${element[1]}> element, which could run in the shop’s pages.`;
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) return 'This SVG declares a DOCTYPE or entities; save it again without them.';
  if (/<\?(?!xml\s)[\w-]+/i.test(text)) return 'This SVG contains a processing instruction (such as a style sheet link).';
  if (/\son[a-z]+\s*=/i.test(text))
    return 'This SVG contains an event handler attribute (onload, onclick, …), which runs script.';
  if (/javascript\s*:/i.test(text)) return 'This SVG contains a javascript: link.';
  if (/@import/i.test(text)) return 'This SVG imports another style sheet (@import) in its style.';
  const hrefs = [...text.matchAll(HREF)];
  for (const [, quoted = ''] of hrefs) {
    const value = quoted.replace(/^["']|["']$/g, '').trim();
    if (!value.startsWith('#'))
      return `This SVG links to ${value.slice(0, 80)}: pictures may only refer to their own parts (#id).`;
  }
  // Any other mention of href (an animation that sets one, an attribute spelt oddly) is refused too.
  if ((text.match(/href/gi) ?? []).length !== hrefs.length) return 'This SVG sets a link (href) in a way the shop cannot check.';
  for (const [, , target = ''] of text.matchAll(URL_FUNCTION)) {
    if (!target.startsWith('#'))
      return `This SVG refers to ${target.slice(0, 80) || 'another file'} with url(): pictures may only refer to their own parts (#id).`;
  }
  return null;
}

/** Why an upload cannot be a picture of the catalogue, in words, or null when it can. */
export function pictureProblem(bytes: Uint8Array): string | null {
  if (bytes.byteLength === 0) return 'The file is empty.';
  if (bytes.byteLength > MAX_PICTURE_BYTES) return 'The picture is larger than 1 MB: save it smaller and upload it again.';
  const type = pictureType(bytes);
  if (!type) return 'The file is not a picture the shop takes: upload an SVG, PNG, JPEG or WebP image.';
  if (type === 'svg') return svgProblem(new TextDecoder().decode(bytes));
  return null;
}

/**
 * The name a picture is stored under: its file's name as a slug, and the first 12 hex digits of the SHA-256 of its
 * bytes, with the extension of what the bytes are. The same name never holds other bytes.
 */
export function pictureName(fileName: string, bytes: Uint8Array): string {
  const type = pictureType(bytes) ?? 'bin';
  const base = fileName.split(/[\\/]/).pop() ?? '';
  const stem =
    base
      .replace(/\.[^.]*$/, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'picture';
  const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 12);
  return `${stem}-${digest}.${type}`;
}
