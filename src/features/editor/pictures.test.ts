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

// What was bypassed: a deny-list of names read with regular expressions. What an SVG may hold is decided by an XML
// parser that knows namespaces, and an allow-list of SVG elements and attributes, so each variant below reads as the
// browser reads it.
describe('an uploaded SVG, read as XML', () => {
  const SVG_NS = 'http://www.w3.org/2000/svg';
  const XHTML_NS = 'http://www.w3.org/1999/xhtml';
  const doc = (text: string) => bytes(text);
  const utf16le = (text: string) => Uint8Array.from(Buffer.from(`\uFEFF${text}`, 'utf16le'));
  const utf16be = (text: string) => Uint8Array.from(Buffer.from(`\uFEFF${text}`, 'utf16le').swap16());

  const namespaces: [string, Uint8Array][] = [
    [
      'a script under a prefix with a dot',
      doc(`<svg xmlns="${SVG_NS}" xmlns:a.b="${SVG_NS}"><a.b:script>alert(1)</a.b:script></svg>`),
    ],
    ['a script under a non-ASCII prefix', doc(`<svg xmlns="${SVG_NS}" xmlns:é="${SVG_NS}"><é:script>alert(1)</é:script></svg>`)],
    [
      'an XHTML script under a prefix with a dot',
      doc(`<svg xmlns="${SVG_NS}" xmlns:h.t="${XHTML_NS}"><h.t:script>alert(1)</h.t:script></svg>`),
    ],
    ['an XHTML script by the default namespace redeclared', svg(`<g xmlns="${XHTML_NS}"><script>alert(1)</script></g>`)],
    ['an element of XHTML that is no script', svg(`<g><p xmlns="${XHTML_NS}">hi</p></g>`)],
    [
      'a script under the svg: prefix',
      doc(`<svg xmlns="${SVG_NS}" xmlns:svg="${SVG_NS}"><svg:script>alert(1)</svg:script></svg>`),
    ],
    ['an element of an unknown vocabulary', svg('<x:thing xmlns:x="urn:example:x"/>')],
    ['a prefix never declared', svg('<a.b:script>alert(1)</a.b:script>')],
    ['a root element in no namespace', doc('<svg><circle r="4"/></svg>')],
    ['an attribute in an unknown namespace', svg('<rect x:onload="alert(1)" xmlns:x="urn:example:x"/>')],
    ['an xml:base that moves the links', svg('<use href="#a"/>', ' xml:base="https://evil.example/"')],
  ];
  it.each(namespaces)('refuses %s', (_, upload) => {
    expect(pictureProblem(upload)).toMatch(/^This SVG /);
  });

  it('names a script element as written, whatever its prefix', () => {
    expect(pictureProblem(namespaces[0]?.[1] ?? new Uint8Array())).toContain('<a.b:script>');
    expect(pictureProblem(namespaces[2]?.[1] ?? new Uint8Array())).toContain('<h.t:script>');
    expect(pictureProblem(svg('<script>alert(1)</script>'))).toContain('<script>');
  });

  const entities: [string, Uint8Array][] = [
    [
      'an internal entity holding a script',
      doc(`<!DOCTYPE svg [<!ENTITY s "<script>alert(1)</script>">]><svg xmlns="${SVG_NS}">&s;</svg>`),
    ],
    [
      'entities that multiply (billion laughs)',
      doc(`<!DOCTYPE svg [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]><svg xmlns="${SVG_NS}"><text>&b;</text></svg>`),
    ],
    [
      'an external DTD',
      doc(
        `<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"><svg xmlns="${SVG_NS}"/>`,
      ),
    ],
    ['an entity never declared', svg('<text>&x;</text>')],
    ['a character reference in an attribute’s name', svg('<rect o&#110;load="alert(1)"/>')],
    ['a character reference spelling javascript: in a link', svg('<use href="&#x6A;avascript:alert(1)"/>')],
    ['character references spelling url() to another server', svg('<rect fill="&#117;rl(https://evil.example/p.svg#g)"/>')],
    ['a character reference hiding url() in a style attribute', svg('<rect style="fill: u&#114;l(//evil.example/x#g)"/>')],
    ['a character reference hiding @import in a style element', svg('<style>&#64;import "https://evil.example/x.css";</style>')],
    [
      'a processing instruction after the root',
      doc(`<svg xmlns="${SVG_NS}"/><?xml-stylesheet href="https://evil.example/x.css"?>`),
    ],
  ];
  it.each(entities)('refuses %s', (_, upload) => {
    expect(pictureProblem(upload)).toMatch(/^This SVG /);
  });

  const cdata: [string, Uint8Array][] = [
    ['an @import in CDATA', svg('<style><![CDATA[@import url(https://evil.example/x.css);]]></style>')],
    ['a remote url() in CDATA', svg('<style><![CDATA[rect { fill: url(https://evil.example/x.svg#g) }]]></style>')],
    ['an @import split across text and CDATA', svg('<style>@imp<![CDATA[ort "https://evil.example/x.css";]]></style>')],
    ['an @import split by a comment', svg('<style>@imp<!-- x -->ort "https://evil.example/x.css";</style>')],
    ['a script in CDATA', svg('<script><![CDATA[alert(1)]]></script>')],
    ['a CSS escape hiding url()', svg('<style>rect { fill: \\75 rl(https://evil.example/x.svg#g) }</style>')],
    ['a CSS escape hiding @import', svg('<style>@\\69mport "https://evil.example/x.css";</style>')],
    ['image-set() with a remote picture', svg('<style>svg { background: image-set("https://evil.example/x.png" 1x) }</style>')],
  ];
  it.each(cdata)('refuses %s', (_, upload) => {
    expect(pictureProblem(upload)).toMatch(/^This SVG /);
  });

  const cases: [string, Uint8Array][] = [
    ['<SCRIPT>', svg('<SCRIPT>alert(1)</SCRIPT>')],
    ['<Script>', svg('<Script>alert(1)</Script>')],
    ['<svg:SCRIPT>', doc(`<svg xmlns="${SVG_NS}" xmlns:svg="${SVG_NS}"><svg:SCRIPT>alert(1)</svg:SCRIPT></svg>`)],
    ['ONLOAD', svg('<circle r="4" ONLOAD="alert(1)"/>')],
    ['onLoad', svg('<circle r="4" onLoad="alert(1)"/>')],
    ['<foreignobject>', svg('<foreignobject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignobject>')],
    ['an upper-case root', doc(`<SVG xmlns="${SVG_NS}"><circle r="4"/></SVG>`)],
  ];
  it.each(cases)('refuses %s in any case', (_, upload) => {
    expect(pictureProblem(upload)).toMatch(/^This SVG /);
  });

  it('refuses what is not UTF-8, saying to save it as UTF-8', () => {
    const evil = `<svg xmlns="${SVG_NS}"><script>alert(1)</script></svg>`;
    const clean = `<svg xmlns="${SVG_NS}"><circle r="4"/></svg>`;
    for (const upload of [utf16le(evil), utf16le(clean), utf16be(evil), utf16be(clean)])
      expect(pictureProblem(upload)).toMatch(/^This SVG .*UTF-8/);
    const latin1 = doc(`<?xml version="1.0" encoding="ISO-8859-1"?>${clean}`);
    expect(pictureProblem(latin1)).toMatch(/^This SVG .*UTF-8/);
    const latin1Bytes = Uint8Array.from(
      Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?><svg xmlns="${SVG_NS}"><title>Crème</title></svg>`, 'latin1'),
    );
    expect(pictureProblem(latin1Bytes)).toMatch(/^This SVG .*UTF-8/);
    expect(pictureProblem(doc(`<?xml version="1.0" encoding="UTF-16"?>${clean}`))).toMatch(/^This SVG .*UTF-8/);
    expect(pictureProblem(doc(`<?xml version="1.1"?>${clean}`))).toMatch(/^This SVG /);
    // A byte-order mark before UTF-8 is read as browsers read it: what follows is checked, and a clean one is taken.
    expect(pictureProblem(doc(`\uFEFF${evil}`))).toMatch(/^This SVG .*<script>/);
    expect(pictureProblem(doc(`\uFEFF<?xml version="1.0" encoding="utf-8"?>${clean}`))).toBeNull();
  });

  const links: [string, Uint8Array][] = [
    ['foreignObject with plain text', svg('<foreignObject width="10" height="10">hello</foreignObject>')],
    [
      'foreignObject with XHTML',
      svg(`<foreignObject><div xmlns="${XHTML_NS}"><img src="x" onerror="alert(1)"/></div></foreignObject>`),
    ],
    ['set of href', svg('<use href="#a"><set attributeName="href" to="https://evil.example/x.svg#a"/></use>')],
    [
      'animate of xlink:href',
      svg(
        '<a><animate attributeName="xlink:href" values="javascript:alert(1)"/><text>x</text></a>',
        ' xmlns:xlink="http://www.w3.org/1999/xlink"',
      ),
    ],
    ['set of an event handler', svg('<rect width="4"><set attributeName="onclick" to="alert(1)"/></rect>')],
    [
      'animate of style',
      svg('<rect width="4"><animate attributeName="style" values="fill:url(https://evil.example/x#g)"/></rect>'),
    ],
    [
      'animate to a remote url()',
      svg('<rect width="4"><animate attributeName="fill" values="url(#a);url(https://evil.example/x#g)"/></rect>'),
    ],
    ['use of another server', svg('<use href="http://evil.example/x.svg#a"/>')],
    ['use of a protocol-relative address', svg('<use href="//evil.example/x.svg#a"/>')],
    ['use with blanks before the #', svg('<use href=" #a"/>')],
    ['image of a data: URL', svg('<image href="data:image/png;base64,iVBORw0KGgo="/>')],
    ['image of a fragment', svg('<image href="#a"/>')],
    ['feImage of another server', svg('<filter id="f"><feImage href="https://evil.example/x.png"/></filter>')],
    ['a link element', svg('<a href="#a"><text>x</text></a>')],
    ['a style @import', svg('<style>@import url(#a);</style>')],
    ['a style url(http…)', svg('<style>rect { fill: url(http://evil.example/x.svg#g) }</style>')],
    ['a cursor from another server', svg('<rect width="4" cursor="url(https://evil.example/c.cur), auto"/>')],
    ['an xlink:href to a relative file', svg('<use xlink:href="x.svg#a"/>', ' xmlns:xlink="http://www.w3.org/1999/xlink"')],
  ];
  it.each(links)('refuses %s', (_, upload) => {
    expect(pictureProblem(upload)).toMatch(/^This SVG /);
  });

  it('accepts the drawing programs’ ordinary SVG: declaration, comments, gradients, CDATA styles, harmless animation', () => {
    const ordinary = doc(
      `<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<!-- drawn by hand -->\n<svg xmlns="${SVG_NS}" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1" viewBox="0 0 10 10" width="10" height="10" role="img" aria-label="A jar">` +
        '<title>A jar</title><desc>Turmeric &amp; honey &lt;jar&gt;</desc>' +
        '<defs><linearGradient id="g" gradientUnits="userSpaceOnUse" x1="0" y1="0" x2="0" y2="10"><stop offset="0" stop-color="#fff"/><stop offset="1" style="stop-color: #000; stop-opacity: 0.5"/></linearGradient>' +
        '<radialGradient id="h" xlink:href="#g"/><clipPath id="c"><circle r="4"/></clipPath>' +
        '<filter id="f"><feGaussianBlur in="SourceGraphic" stdDeviation="1"/></filter><path id="p" d="M0 5h10"/></defs>' +
        '<style><![CDATA[ .jar { fill: url(#g); } @media (prefers-color-scheme: dark) { .jar { opacity: 0.9 } } ]]></style>' +
        '<g class="jar" clip-path="url(#c)" filter="url( \'#f\' )" transform="translate(1 1)"><rect width="8" height="8" rx="1"/>' +
        '<animate attributeName="opacity" values="0.8;1;0.8" dur="3s" repeatCount="indefinite"/></g>' +
        '<text xml:space="preserve" font-family="Georgia, \'Times New Roman\'" font-size="2"><textPath href="#p">Aurelia</textPath></text>' +
        '<use href="#p" stroke="url(#h)"/></svg>',
    );
    expect(pictureProblem(ordinary)).toBeNull();
  });
});
