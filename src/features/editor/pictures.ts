// Pictures editors upload: limited in size, one of four types known by their bytes (never by the file's name), stored
// under a name carrying a digest of them. An SVG is a document that can run script and load from other servers, so it
// is read by an XML parser as the browser reads it, and one holding anything but SVG's drawing elements and attributes
// (script, event handlers, embedded HTML, a reference to anything but its own #fragments, entities) is refused (not
// cleaned: a cleaned drawing would not be the one the editor meant, and a refusal says what to fix). Wherever a picture
// is served it also carries a policy under which nothing in it can run or load (the edge, src/edge/csp.ts's PICTURE_POLICY).
import { createHash } from 'node:crypto';
import { type SaxesAttributeNS, SaxesParser, type SaxesTagNS } from 'saxes';

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

/**
 * Headers for serving a stored picture (the editors' previews): never sniffed as another type, and the policy under
 * which nothing in it runs or loads, the same as src/edge/csp.ts's PICTURE_POLICY for every picture the shop serves.
 */
export const PICTURE_HEADERS = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
  'x-content-type-options': 'nosniff',
} as const;

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0) => prefix.every((b, i) => bytes[at + i] === b);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** Whether a text starts as an SVG does: nothing but a prolog before an <svg> element, and no NUL anywhere. */
function startsAsSvg(text: string): boolean {
  if (text.includes('\u0000')) return false;
  // Before the root element: a BOM, white space, the XML declaration and other instructions, comments, a DOCTYPE.
  const prolog = /^\uFEFF?(?:\s+|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE(?:[^[>]|\[[\s\S]*?\])*>)*/i.exec(text)?.[0] ?? '';
  return /^<svg[\s>/]/i.test(text.slice(prolog.length));
}

/** An SVG's text, or null when the bytes are not UTF-8 text whose first element is <svg>. */
function svgText(bytes: Uint8Array): string | null {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
  return startsAsSvg(text) ? text : null;
}

/**
 * Whether bytes that are not UTF-8 would be an SVG in another encoding: UTF-16 (known by its byte-order mark) or a
 * single-byte one such as ISO-8859-1. Only UTF-8 is checked and taken, so such a file is refused with what to do.
 */
function svgInAnotherEncoding(bytes: Uint8Array): boolean {
  const encoding = startsWith(bytes, [0xff, 0xfe]) ? 'utf-16le' : startsWith(bytes, [0xfe, 0xff]) ? 'utf-16be' : 'latin1';
  return startsAsSvg(new TextDecoder(encoding).decode(bytes));
}

/** What the bytes are: SVG, PNG, JPEG or WebP, or null for anything else. */
export function pictureType(bytes: Uint8Array): PictureType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpg';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'webp';
  return svgText(bytes) === null ? null : 'svg';
}

const SVG_NS = 'http://www.w3.org/2000/svg';
const XLINK_NS = 'http://www.w3.org/1999/xlink';
const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

/**
 * What an SVG picture may hold is listed, not what it may not: a list of what is forbidden was got round by spellings
 * it did not foresee (a prefix with a dot, another namespace). Elements count by namespace and local name as the
 * browser resolves them: only SVG's drawing, text, paint, filter and animation elements, nothing that runs script,
 * shows another document, embeds another file or links away (script, foreignObject, image, feImage, a, …).
 */
// biome-ignore format: a list to read, not code
const ELEMENTS = new Set([
  'svg', 'g', 'defs', 'symbol', 'use', 'switch', 'view', 'title', 'desc', 'metadata', 'style',
  'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon', 'text', 'tspan', 'textPath',
  'linearGradient', 'radialGradient', 'stop', 'pattern', 'clipPath', 'mask', 'marker',
  'filter', 'feBlend', 'feColorMatrix', 'feComponentTransfer', 'feComposite', 'feConvolveMatrix',
  'feDiffuseLighting', 'feDisplacementMap', 'feDistantLight', 'feDropShadow', 'feFlood', 'feFuncA', 'feFuncB',
  'feFuncG', 'feFuncR', 'feGaussianBlur', 'feMerge', 'feMergeNode', 'feMorphology', 'feOffset', 'fePointLight',
  'feSpecularLighting', 'feSpotLight', 'feTile', 'feTurbulence',
  'animate', 'animateMotion', 'animateTransform', 'set', 'mpath',
]);

/** Elements that can run script or show another document, in any namespace and any case: named as such in a refusal. */
const RUNS = /^(?:script|foreignobject|iframe|embed|object|handler|listener|frame|frameset|applet)$/i;

/** Animation elements: what they change (attributeName) must be one of ANIMATABLE. */
const ANIMATIONS = new Set(['animate', 'animateMotion', 'animateTransform', 'set']);

/** How a shape looks (SVG's presentation attributes): the only attributes an animation may change, with GEOMETRY. */
// biome-ignore format: a list to read, not code
const PRESENTATION = [
  'alignment-baseline', 'baseline-shift', 'clip', 'clip-path', 'clip-rule', 'color', 'color-interpolation',
  'color-interpolation-filters', 'color-rendering', 'cursor', 'direction', 'display', 'dominant-baseline', 'fill',
  'fill-opacity', 'fill-rule', 'filter', 'flood-color', 'flood-opacity', 'font', 'font-family', 'font-kerning',
  'font-size', 'font-size-adjust', 'font-stretch', 'font-style', 'font-variant', 'font-weight',
  'glyph-orientation-horizontal', 'glyph-orientation-vertical', 'image-rendering', 'isolation', 'kerning',
  'letter-spacing', 'lighting-color', 'marker', 'marker-end', 'marker-mid', 'marker-start', 'mask', 'mask-type',
  'mix-blend-mode', 'opacity', 'overflow', 'paint-order', 'pointer-events', 'shape-rendering', 'stop-color',
  'stop-opacity', 'stroke', 'stroke-dasharray', 'stroke-dashoffset', 'stroke-linecap', 'stroke-linejoin',
  'stroke-miterlimit', 'stroke-opacity', 'stroke-width', 'text-anchor', 'text-decoration', 'text-rendering',
  'transform', 'transform-origin', 'unicode-bidi', 'vector-effect', 'visibility', 'word-spacing', 'writing-mode',
];

/** Where and how large a shape, gradient, text or filter is. */
// biome-ignore format: a list to read, not code
const GEOMETRY = [
  'x', 'y', 'x1', 'y1', 'x2', 'y2', 'cx', 'cy', 'r', 'rx', 'ry', 'fx', 'fy', 'fr', 'width', 'height', 'd', 'points',
  'pathLength', 'viewBox', 'preserveAspectRatio', 'offset', 'dx', 'dy', 'rotate', 'textLength', 'lengthAdjust',
  'startOffset', 'method', 'spacing', 'side', 'path', 'refX', 'refY', 'orient', 'markerWidth', 'markerHeight',
  'markerUnits', 'gradientUnits', 'gradientTransform', 'spreadMethod', 'patternUnits', 'patternContentUnits',
  'patternTransform', 'clipPathUnits', 'maskUnits', 'maskContentUnits', 'filterUnits', 'primitiveUnits', 'in', 'in2',
  'result', 'stdDeviation', 'mode', 'operator', 'k1', 'k2', 'k3', 'k4', 'type', 'values', 'tableValues', 'slope',
  'intercept', 'amplitude', 'exponent', 'order', 'kernelMatrix', 'divisor', 'bias', 'targetX', 'targetY', 'edgeMode',
  'preserveAlpha', 'kernelUnitLength', 'surfaceScale', 'diffuseConstant', 'specularConstant', 'specularExponent',
  'scale', 'xChannelSelector', 'yChannelSelector', 'radius', 'baseFrequency', 'numOctaves', 'seed', 'stitchTiles',
  'azimuth', 'elevation', 'z', 'pointsAtX', 'pointsAtY', 'pointsAtZ', 'limitingConeAngle',
];

const ANIMATABLE = new Set([...PRESENTATION, ...GEOMETRY]);

/**
 * Attributes (in no namespace) an SVG picture may carry: how it looks, where it is, what it is called (id, class,
 * title for assistive technology), its style (checked as CSS), and the timing of an animation. Not one event handler,
 * no xml:base, nothing of another vocabulary's. href is checked apart (isHref).
 */
// biome-ignore format: a list to read, not code
const ATTRIBUTES = new Set([
  ...ANIMATABLE,
  'id', 'class', 'style', 'lang', 'tabindex', 'role', 'focusable', 'version', 'baseProfile', 'zoomAndPan', 'media',
  'systemLanguage', 'requiredExtensions', 'requiredFeatures',
  'attributeName', 'attributeType', 'begin', 'dur', 'end', 'min', 'max', 'restart', 'repeatCount', 'repeatDur',
  'calcMode', 'keyTimes', 'keySplines', 'keyPoints', 'from', 'to', 'by', 'additive', 'accumulate',
]);

/** Attributes for assistive technology and the page's own data: text that nothing runs. */
const TEXT_ATTRIBUTE = /^(?:aria-[a-z]+|data-[a-z0-9._-]+)$/;

/** A reference to one of the picture's own parts, and nothing else: `#id` as written, no blank before it. */
const OWN_PART = /^#\S*$/;

/** A CSS url() and where it points (after any quote and blanks). */
const CSS_URL = /url\(\s*(["']?)\s*([^"')\s]*)/gi;
/** CSS functions that load a picture from a plain string, without url(). */
const CSS_LOADS = /(?:image-set|image|cross-fade|src)\s*\(/i;

/**
 * Why a piece of CSS (a <style> element's text, a style attribute, any attribute's value: SVG reads presentation
 * attributes as CSS) must not reach the shop, or null. A CSS escape (\\75 rl, @\\69mport) spells what a check of the
 * text would not see, so none is taken; nothing else in a picture's style needs one.
 */
function cssProblem(css: string): string | null {
  if (/@import/i.test(css)) return 'This SVG imports another style sheet (@import) in its style.';
  if (css.includes('\\'))
    return 'This SVG has an escaped character (a backslash) in its style, which the shop cannot check: write it out plainly.';
  for (const [, , target = ''] of css.matchAll(CSS_URL)) {
    if (!target.startsWith('#'))
      return `This SVG refers to ${target.slice(0, 80) || 'another file'} with url(): pictures may only refer to their own parts (#id).`;
  }
  if (CSS_LOADS.test(css))
    return 'This SVG loads a picture through its style (image-set(), image(), …): pictures may only refer to their own parts (#id).';
  return null;
}

/** An SVG's problem, found as it is read: thrown to stop the reading at the first one. */
class Refusal {
  constructor(readonly message: string) {}
}
const refuse = (message: string): never => {
  throw new Refusal(message);
};

/** An href (SVG 2's, or XLink's) points only to a part of the picture itself. */
const isHref = (attribute: SaxesAttributeNS) =>
  attribute.local === 'href' && (attribute.uri === '' || attribute.uri === XLINK_NS);

/** Refuses an element that is not an SVG element of the list. `name` is as written (with its prefix). */
function checkElement(tag: SaxesTagNS, isRoot: boolean): void {
  if (RUNS.test(tag.local)) refuse(`This SVG contains a <${tag.name}> element, which could run in the shop’s pages.`);
  if (isRoot && (tag.uri !== SVG_NS || tag.local !== 'svg'))
    refuse(`This SVG does not start with an <svg> element of the SVG namespace: write it as <svg xmlns="${SVG_NS}">.`);
  if (tag.uri !== SVG_NS)
    refuse(
      `This SVG contains a <${tag.name}> element from outside SVG (${tag.uri || 'no namespace'}): pictures may only hold SVG drawing elements.`,
    );
  if (tag.local === 'image' || tag.local === 'feImage')
    refuse(`This SVG embeds another picture (<${tag.name}>): upload that picture on its own, or draw it in the SVG.`);
  if (!ELEMENTS.has(tag.local))
    refuse(`This SVG contains an element the shop does not take in pictures (<${tag.name}>): save it without it.`);
}

/** Refuses an attribute the list does not name, an href to anything but the picture's own parts, and unsafe CSS. */
function checkAttribute(tag: SaxesTagNS, attribute: SaxesAttributeNS): void {
  const { name, local, uri, value } = attribute;
  // Namespace declarations name a vocabulary; what is written in it is checked element by element.
  if (uri === XMLNS_NS) return;
  if (/^on/i.test(local)) refuse('This SVG contains an event handler attribute (onload, onclick, …), which runs script.');
  if (isHref(attribute)) {
    if (!OWN_PART.test(value))
      refuse(`This SVG links to ${value.slice(0, 80)}: pictures may only refer to their own parts (#id).`);
    return;
  }
  const known =
    (uri === '' && (ATTRIBUTES.has(local) || TEXT_ATTRIBUTE.test(local))) ||
    (uri === XML_NS && (local === 'space' || local === 'lang'));
  if (!known)
    refuse(`This SVG has an attribute the shop does not take in pictures (${name} on <${tag.name}>): save it without it.`);
  const css = cssProblem(value);
  if (css) refuse(css);
  if (local === 'attributeName' && ANIMATIONS.has(tag.local) && !ANIMATABLE.has(value))
    refuse(
      `This SVG animates ${value.slice(0, 80)}, which the shop cannot check: pictures may only animate how they look (fill, opacity, transform, …).`,
    );
}

/**
 * Why this SVG must not reach the shop, in words, or null when it draws and nothing else: read by a strict XML parser
 * that resolves namespaces as the browser does (saxes), every element and attribute checked against the lists above.
 * Refused too: a DOCTYPE (entities can spell anything), processing instructions other than the XML declaration, an
 * encoding other than UTF-8 (the browser would read other characters than were checked), XML that is not well-formed,
 * and a <style> whose text (its CDATA sections included, as the browser joins them) imports, loads or escapes.
 */
export function svgProblem(text: string): string | null {
  const parser = new SaxesParser({ xmlns: true, forceXMLVersion: true, defaultXMLVersion: '1.0' });
  const open: string[] = [];
  let seenRoot = false;
  let style: string | null = null;
  parser.on('error', () =>
    refuse(
      `This SVG is not well-formed XML (line ${parser.line}, column ${parser.column + 1}): save it again from the drawing program.`,
    ),
  );
  parser.on('xmldecl', ({ version, encoding }) => {
    if (encoding !== undefined && !/^utf-8$/i.test(encoding))
      refuse(`This SVG is saved as ${encoding.slice(0, 40)}: save it as UTF-8 and upload it again.`);
    if (version !== undefined && version !== '1.0')
      refuse(`This SVG is XML ${version.slice(0, 10)}: save it as XML 1.0 (the usual kind).`);
  });
  parser.on('doctype', () => refuse('This SVG declares a DOCTYPE or entities; save it again without them.'));
  parser.on('processinginstruction', () => refuse('This SVG contains a processing instruction (such as a style sheet link).'));
  parser.on('opentag', (tag) => {
    if (style !== null) refuse('This SVG has elements inside its <style>: a style holds CSS only.');
    checkElement(tag, !seenRoot);
    seenRoot = true;
    for (const attribute of Object.values(tag.attributes)) checkAttribute(tag, attribute);
    open.push(tag.local);
    if (tag.local === 'style') style = '';
  });
  // The browser takes a style's text as its text and CDATA joined (comments between them left out): so is it checked.
  const styleText = (chunk: string) => {
    if (style !== null) style += chunk;
  };
  parser.on('text', styleText);
  parser.on('cdata', styleText);
  parser.on('closetag', () => {
    if (open.pop() === 'style' && style !== null) {
      const css = cssProblem(style);
      if (css) refuse(css);
      style = null;
    }
  });
  try {
    parser.write(text).close();
  } catch (error) {
    if (error instanceof Refusal) return error.message;
    throw error;
  }
  return null;
}

/** Why an upload cannot be a picture of the catalogue, in words, or null when it can. */
export function pictureProblem(bytes: Uint8Array): string | null {
  if (bytes.byteLength === 0) return 'The file is empty.';
  if (bytes.byteLength > MAX_PICTURE_BYTES) return 'The picture is larger than 1 MB: save it smaller and upload it again.';
  const type = pictureType(bytes);
  if (!type && svgInAnotherEncoding(bytes)) return 'This SVG is not saved as UTF-8 text: save it as UTF-8 and upload it again.';
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
