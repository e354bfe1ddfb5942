import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { IMAGES_DIR } from './catalogue-guard';
import { MAX_PICTURE_BYTES, pictureName, pictureProblem, pictureType } from './pictures';

const bytes = (text: string) => new TextEncoder().encode(text);
const svg = (inner: string, attrs = '') =>
  bytes(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"${attrs}>${inner}</svg>`);
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const JPEG = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46]);
const WEBP = Uint8Array.from([...bytes('RIFF'), 36, 0, 0, 0, ...bytes('WEBPVP8 ')]);

describe('an uploaded picture', () => {
  it('is known by its bytes, not its name', () => {
    expect(pictureType(PNG)).toBe('png');
    expect(pictureType(JPEG)).toBe('jpg');
    expect(pictureType(WEBP)).toBe('webp');
    expect(pictureType(svg('<circle r="4"/>'))).toBe('svg');
    expect(pictureType(bytes('<?xml version="1.0"?>\n<!-- drawn -->\n<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe('svg');
    expect(pictureType(bytes('<html><body>hi</body></html>'))).toBeNull();
    expect(pictureType(bytes('GIF89a'))).toBeNull();
    expect(pictureType(bytes('%PDF-1.7'))).toBeNull();
    // A PNG named .svg is a PNG: the stored name takes the type from the bytes.
    expect(pictureName('drawing.svg', PNG)).toMatch(/^drawing-[0-9a-f]{12}\.png$/);
  });

  it('is named after its file and a digest of its bytes', () => {
    expect(pictureName('My Scrubs (Blue).SVG', svg('<circle r="4"/>'))).toMatch(/^my-scrubs-blue-[0-9a-f]{12}\.svg$/);
    expect(pictureName('../../../etc/passwd.png', PNG)).toMatch(/^passwd-[0-9a-f]{12}\.png$/);
    expect(pictureName('✿.png', PNG)).toMatch(/^picture-[0-9a-f]{12}\.png$/);
    expect(pictureName('a.png', PNG)).not.toBe(pictureName('a.png', JPEG));
  });

  it('is refused over the size limit, empty, or of another type', () => {
    expect(pictureProblem(new Uint8Array(MAX_PICTURE_BYTES + 1).fill(0x20))).toMatch(/larger than 1 MB/);
    expect(pictureProblem(new Uint8Array())).toMatch(/empty/);
    expect(pictureProblem(bytes('GIF89a'))).toMatch(/SVG, PNG, JPEG or WebP/);
    expect(pictureProblem(PNG)).toBeNull();
  });

  it('every picture of the seed passes', () => {
    for (const name of readdirSync(IMAGES_DIR)) expect(pictureProblem(readFileSync(`${IMAGES_DIR}/${name}`)), name).toBeNull();
  });

  // The attack: an SVG is a document. Opened on the shop's origin (or inlined later), script, event handlers, embedded
  // HTML or a reference to another server would run or load in the shop. None of these may be stored.
  const attacks: [string, Uint8Array][] = [
    ['a script element', svg('<script>fetch("/api/orders")</script>')],
    ['a script in another namespace prefix', svg('<svg:script xmlns:svg="http://www.w3.org/2000/svg">alert(1)</svg:script>')],
    ['a script in upper case', svg('<SCRIPT>alert(1)</SCRIPT>')],
    ['an event handler', svg('<circle r="4"/>', ' onload="alert(1)"')],
    ['an event handler after a newline', svg('<rect\nonclick="alert(1)" width="1"/>')],
    ['an event handler with odd spacing', svg('<rect width="1" onmouseover = alert(1) />')],
    [
      'foreignObject with HTML',
      svg('<foreignObject><iframe xmlns="http://www.w3.org/1999/xhtml" src="https://evil.example"/></foreignObject>'),
    ],
    ['a javascript: link', svg('<a href="javascript:alert(1)"><text>x</text></a>')],
    ['an entity-encoded javascript: link', svg('<a href="&#106;avascript:alert(1)"><text>x</text></a>')],
    [
      'an xlink:href to another server',
      svg('<image xlink:href="https://evil.example/track.png"/>', ' xmlns:xlink="http://www.w3.org/1999/xlink"'),
    ],
    ['a use of another file', svg('<use href="other.svg#x"/>')],
    ['a data: URL', svg('<image href="data:image/svg+xml;base64,PHN2Zz4="/>')],
    ['an unquoted href', svg('<use href=https://evil.example/x.svg#a />')],
    ['a url() to another server in an attribute', svg('<rect fill="url(https://evil.example/p.svg#g)"/>')],
    ['a url() in a style attribute', svg('<rect style="fill: url( \'//evil.example/x#g\' )"/>')],
    ['a style element importing', svg('<style>@import url("https://evil.example/x.css");</style>')],
    ['a style element with a remote background', svg('<style>rect { background: url(https://evil.example/x.png) }</style>')],
    ['an @import without url()', svg('<style>@import "https://evil.example/x.css";</style>')],
    [
      'an xml-stylesheet instruction',
      bytes('<?xml-stylesheet href="https://evil.example/x.css"?><svg xmlns="http://www.w3.org/2000/svg"/>'),
    ],
    [
      'a DOCTYPE with entities',
      bytes('<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg">&x;</svg>'),
    ],
    ['an animation that sets a link', svg('<a><set attributeName="href" to="javascript:alert(1)"/><text>x</text></a>')],
    ['an iframe', svg('<iframe src="https://evil.example"></iframe>')],
    ['an embed', svg('<embed src="https://evil.example/x.swf"/>')],
  ];
  it.each(attacks)('an SVG carrying %s is refused', (_, upload) => {
    expect(pictureProblem(upload)).toMatch(/^This SVG /);
  });

  it('an SVG with local references only (#fragments) is accepted', () => {
    const local = svg(
      '<defs><linearGradient id="g"><stop offset="0"/></linearGradient></defs><rect fill="url(#g)" width="4"/><use href="#g"/><use xlink:href="#g"/><style>rect { fill: url( "#g" ) }</style>',
      ' xmlns:xlink="http://www.w3.org/1999/xlink"',
    );
    expect(pictureProblem(local)).toBeNull();
  });
});
